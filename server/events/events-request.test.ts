import { describe, expect, it } from 'vitest';
import { resumeFrom, tooManyStreams } from './events-request.js';
import { EventHub } from './hub.js';

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

describe('the stream cap\'s refusal', () => {
  it('names the cap the hub enforces and what to do', () => {
    const hub = new EventHub({ maxStreamsPerUser: 3 });
    expect(hub.maxStreamsPerUser).toBe(3);
    expect(new EventHub().maxStreamsPerUser).toBe(20);
    expect(tooManyStreams(hub.maxStreamsPerUser)).toBe('too many open event streams for this user (at most 3); close another tab or client and try again');
  });
});
