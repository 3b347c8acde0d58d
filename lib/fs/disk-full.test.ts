import { describe, expect, it } from 'vitest';
import { isDiskFull } from './disk-full';

describe('isDiskFull', () => {
  it('knows node errno, SQLite and git stderr, also as a cause', () => {
    expect(isDiskFull(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('x'), { code: 'EDQUOT' }))).toBe(true);
    expect(isDiskFull(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(true);
    expect(isDiskFull(new Error('git commit failed: fatal: unable to write new index file: No space left on device'))).toBe(true);
    expect(isDiskFull(new Error('could not append', { cause: Object.assign(new Error('inner'), { code: 'ENOSPC' }) }))).toBe(true);
  });

  it('is false for other errors and non-errors', () => {
    expect(isDiskFull(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe(false);
    expect(isDiskFull(new Error('a message about space travel'))).toBe(false);
    expect(isDiskFull('ENOSPC')).toBe(false);
    expect(isDiskFull(null)).toBe(false);
    const loop: { cause?: unknown; message: string } = { message: 'loop' };
    loop.cause = loop;
    expect(isDiskFull(loop)).toBe(false);
  });
});
