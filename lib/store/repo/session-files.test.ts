import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../testing/kill-harness.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-store.js';
import { parseNodeFileName, readMeta, writeMeta, writeMetaInPlace, writeNodeFile } from './session-files.js';
import type { SessionMeta, StoredNode } from '../types.js';

const meta = (title: string): SessionMeta => ({ id: 's', title } as SessionMeta);

describe('session files', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('rewrites meta.json in place: a shorter meta is padded with whitespace and still reads back', () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    writeMeta(dir, meta('a long title that will shrink'), null);
    const before = statSync(join(dir, 'meta.json')).size;
    writeMetaInPlace(dir, meta('short'), null);
    expect(statSync(join(dir, 'meta.json')).size).toBe(before);
    expect(readFileSync(join(dir, 'meta.json'), 'utf8')).toMatch(/^\{"id":"s","title":"short"\} +$/);
    expect(readMeta(dir)).toEqual(meta('short'));
    writeMetaInPlace(dir, meta('grown much longer than anything before it'), null);
    expect(readMeta(dir)).toEqual(meta('grown much longer than anything before it'));
    // Python's json.load, like JSON.parse, accepts the trailing whitespace.
    expect(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'))).toEqual(meta('grown much longer than anything before it'));
  });

  it('creates meta.json atomically when it does not exist yet', () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    writeMetaInPlace(dir, meta('new'), null);
    expect(readMeta(dir)).toEqual(meta('new'));
  });

  it('treats an unparsable or non-object meta.json as no session', () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    writeFileSync(join(dir, 'meta.json'), '[1]');
    expect(readMeta(dir)).toBeNull();
    writeFileSync(join(dir, 'meta.json'), '{"id":');
    expect(readMeta(dir)).toBeNull();
  });

  it('parses node file names of 4 and 6 digits and any role letter', () => {
    expect(parseNodeFileName('0003-l-r2.json')).toEqual({ name: '0003-l-r2.json', seq: 3, letter: 'l', id: 'r2', width: 4 });
    expect(parseNodeFileName('000012-u-abc123.json')).toMatchObject({ seq: 12, letter: 'u', id: 'abc123', width: 6 });
    expect(parseNodeFileName('notes.txt')).toBeNull();
  });

  it('a node that cannot be serialised leaves no node file behind', () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const node = { id: 'n1', seq: 0, role: 'user', output: 'x' } as unknown as StoredNode;
    writeNodeFile(dir, '000000-u-n1.json', node, null);
    expect(() => writeNodeFile(dir, '000001-u-n2.json', { ...node, id: 'n2', metadata: { n: 1n } } as unknown as StoredNode, null)).toThrow(TypeError);
    expect(readdirSync(join(dir, 'history'))).toEqual(['000000-u-n1.json']);
    expect(existsSync(join(dir, 'history', '000001-u-n2.json'))).toBe(false);
  });

  it('a SIGKILL while a node file is being written never leaves a torn file under its name (found by bench/crash)', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const name = '000000-u-big.json';
    const script = join(dir, 'writer.mts');
    writeFileSync(
      script,
      `import { writeNodeFile } from ${JSON.stringify(join(REPO_ROOT, 'lib/store/repo/session-files.ts'))};
       writeNodeFile(${JSON.stringify(dir)}, ${JSON.stringify(name)}, { id: 'big', seq: 0, role: 'user', output: 'x'.repeat(200 * 1024 * 1024) });`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, stdio: 'ignore' });
    const path = join(dir, 'history', name);
    // Killed the moment the name appears: before the fix that was an empty file being filled.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (existsSync(path) || child.exitCode !== null) {
          clearInterval(timer);
          child.kill('SIGKILL');
          resolve();
        }
      }, 1);
    });
    await new Promise((resolve) => child.once('exit', resolve).exitCode !== null && resolve(null));
    expect(existsSync(path)).toBe(true);
    expect((JSON.parse(readFileSync(path, 'utf8')) as { id: string }).id).toBe('big');
  }, 60_000);
});
