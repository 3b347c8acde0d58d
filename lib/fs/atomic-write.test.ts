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

  // A git ref's temp file in its refs/heads directory is what a crash left for git fsck to refuse.
  it('put the temp file in tempDir while it is written, and nothing there afterwards', async () => {
    const dir = fresh();
    const refs = join(dir, 'refs', 'heads');
    let seen: { refs: string[]; top: string[] } | undefined;
    await atomicWriteFile(join(refs, 'main'), 'abc\n', {
      tempDir: dir,
      stillWanted: () => {
        seen = { refs: readdirSync(refs), top: readdirSync(dir).filter((name) => name !== 'refs') };
        return true;
      },
    });
    expect(seen?.refs).toEqual([]);
    expect(seen?.top).toHaveLength(1);
    expect(seen?.top[0]).toMatch(/^\.main\..*\.tmp$/);
    atomicWriteFileSync(join(refs, 'main'), 'def\n', { tempDir: dir });
    expect(readdirSync(refs)).toEqual(['main']);
    expect(readdirSync(dir).sort()).toEqual(['refs']);
    expect(readFileSync(join(refs, 'main'), 'utf8')).toBe('def\n');
  });
});
