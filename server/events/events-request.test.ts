import { describe, expect, it } from 'vitest';
import { resumeFrom } from './events-request.js';

describe('where a stream resumes', () => {
  it('takes the Last-Event-ID header first, then ?since, else nothing', () => {
    expect(resumeFrom(new Headers({ 'last-event-id': 'b1-7' }), '/api/events?since=b1-3')).toBe('b1-7');
    expect(resumeFrom(new Headers(), '/api/events?since=b1-3')).toBe('b1-3');
    expect(resumeFrom(new Headers(), '/api/events')).toBeNull();
  });

  it('ignores an overlong since', () => {
    expect(resumeFrom(new Headers(), `/api/events?since=${'x'.repeat(65)}`)).toBeNull();
  });
});
