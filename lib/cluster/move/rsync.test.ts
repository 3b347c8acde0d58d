import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoOfCopiedPath, rsyncUser, unescapeRsyncName } from './rsync.js';

const USER = '0123456789abcdef';
const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

describe('rsyncUser: what the final copy reports', () => {
  it('lists the repositories it wrote or deleted a .git file of, and nothing for working-tree files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'em-rsync-'));
    roots.push(root);
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    const session = (dir: string, id: string) => join(dir, 'users', USER, 'sessions', id);
    for (const id of ['s1', 's2', 's3', 'new\nline']) write(join(session(a, id), '.git', 'objects', 'ab', 'cd'), id);
    write(join(a, 'workspaces', USER, 'notes', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    write(join(session(a, 's3'), 'history', '000001.json'), '{}');
    expect((await rsyncUser(a, b, USER, { final: false })).changedRepos).toEqual([]);

    write(join(session(a, 's1'), '.git', 'objects', 'ef', '01'), 'new object');
    unlinkSync(join(session(a, 's2'), '.git', 'objects', 'ab', 'cd'));
    write(join(session(a, 's3'), 'history', '000002.json'), '{}');
    write(join(session(a, 'new\nline'), '.git', 'packed-refs'), '');
    write(join(a, 'workspaces', USER, 'notes', '.git', 'refs', 'heads', 'main'), '0'.repeat(40));
    const { changedRepos } = await rsyncUser(a, b, USER, { final: true });
    expect(changedRepos).toEqual([`users/${USER}/sessions/new\nline`, `users/${USER}/sessions/s1`, `users/${USER}/sessions/s2`, `workspaces/${USER}/notes`]);
    expect((await rsyncUser(a, b, USER, { final: true })).changedRepos).toEqual([]);
  });

  it('sends a ref rewritten at the same size within the same second (mtimes compared to the nanosecond)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'em-rsync-'));
    roots.push(root);
    const ref = (dir: string) => join(dir, 'users', USER, 'sessions', 's1', '.git', 'refs', 'heads', 'main');
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    mkdirSync(join(a, 'workspaces'), { recursive: true });
    write(ref(a), `${'1'.repeat(40)}\n`);
    utimesSync(ref(a), 1_700_000_000.1, 1_700_000_000.1);
    await rsyncUser(a, b, USER, { final: false });
    write(ref(a), `${'2'.repeat(40)}\n`);
    utimesSync(ref(a), 1_700_000_000.6, 1_700_000_000.6);
    expect((await rsyncUser(a, b, USER, { final: true })).changedRepos).toEqual([`users/${USER}/sessions/s1`]);
    expect(readFileSync(ref(b), 'utf8')).toBe(`${'2'.repeat(40)}\n`);
  });

  it('sends a file rewritten in place at the same size and the very same mtime (meta.json, a project file, git\'s index), and reports the index\'s repository', async () => {
    const root = mkdtempSync(join(tmpdir(), 'em-rsync-'));
    roots.push(root);
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    const meta = (dir: string) => join(dir, 'users', USER, 'sessions', 's1', 'meta.json');
    const project = (dir: string) => join(dir, 'workspaces', USER, 'app', 'main.py');
    const index = (dir: string) => join(dir, 'workspaces', USER, 'app', '.git', 'index');
    const files = [meta, project, index];
    const at = 1_700_000_000.25;
    for (const file of files) {
      write(file(a), 'version one ');
      utimesSync(file(a), at, at);
    }
    await rsyncUser(a, b, USER, { final: false });
    // Written again within the same clock tick: same size, same mtime, other bytes.
    for (const file of files) {
      writeFileSync(file(a), 'version two ');
      utimesSync(file(a), at, at);
    }
    expect((await rsyncUser(a, b, USER, { final: true })).changedRepos).toEqual([`workspaces/${USER}/app`]);
    for (const file of files) expect(readFileSync(file(b), 'utf8')).toBe('version two ');
  });

  it('maps a name to its repository and decodes rsync\'s escapes', () => {
    expect(repoOfCopiedPath('users', `${USER}/sessions/x/.git/objects/ab/cd`)).toBe(`users/${USER}/sessions/x`);
    expect(repoOfCopiedPath('users', `${USER}/sessions/x/.git/`)).toBe(`users/${USER}/sessions/x`);
    expect(repoOfCopiedPath('users', `${USER}/sessions/x/history/1.json`)).toBeNull();
    expect(unescapeRsyncName('a\\#012b\\#303\\#251')).toBe('a\nbé');
  });
});
