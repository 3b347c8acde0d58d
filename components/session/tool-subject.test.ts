import { describe, expect, it } from 'vitest';
import { toolSubject } from './tool-subject';

describe('the subject of a folded tool call', () => {
  it('is the file, the command or the pattern, whichever the call has', () => {
    expect(toolSubject({ file_path: '/home/u/proj/notes.txt', content: 'a long body' })).toBe('/home/u/proj/notes.txt');
    expect(toolSubject('{"command":"npm test -- --run\\nsecond line","description":"Run the tests"}')).toBe('npm test -- --run');
    expect(toolSubject({ command: ['bash', '-lc', 'ls -la'] })).toBe('bash -lc ls -la');
    expect(toolSubject({ pattern: 'TODO', path: '' })).toBe('TODO');
  });

  it('is empty for a call without one, and cut when long', () => {
    expect(toolSubject(null)).toBe('');
    expect(toolSubject('not json')).toBe('');
    expect(toolSubject({ todos: [] })).toBe('');
    expect(toolSubject({ command: 'x'.repeat(300) })).toHaveLength(120);
  });
});
