import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { atomicWriteFile, atomicWriteFileSync } from './atomic-write';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-write-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('atomic writes', () => {
  it('write the whole content', async () => {
    const dir = fresh();
    atomicWriteFileSync(join(dir, 'a.json'), '{"a":1}');
    await atomicWriteFile(join(dir, 'b.json'), '{"b":2}');
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{"a":1}');
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe('{"b":2}');
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json']);
  });

  // A write that fails half-way (as on a full disk: tests/full-disk proves it on a real one).
  it('leave no temp file behind when the write fails, and keep the old file', async () => {
    const dir = fresh();
    const path = join(dir, 'meta.json');
    atomicWriteFileSync(path, '{"old":true}');
    const failing = { length: 5 };
    expect(() => atomicWriteFileSync(path, failing as unknown as string)).toThrow();
    await expect(atomicWriteFile(path, failing as unknown as string)).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['meta.json']);
    expect(readFileSync(path, 'utf8')).toBe('{"old":true}');
  });
});
