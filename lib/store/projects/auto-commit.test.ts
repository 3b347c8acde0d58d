import { rmSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { beginProjectTurn, finishProjectTurn, type FinishProjectTurnOptions } from './auto-commit.js';
import { cleanupTempDirs, git, head, makeRepo, status, tempDir, writeFiles } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

const SID = 'sess0001';

function opts(extra: Partial<FinishProjectTurnOptions> = {}): FinishProjectTurnOptions {
  return { sessionId: SID, turn: 3, userMessage: 'Fix the parser\nplease, thanks', model: 'gpt-test', ...extra };
}

describe('beginProjectTurn', () => {
  it('notes HEAD, dirty paths (modified, staged, untracked, deleted) and cleanliness', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'dir/c.txt': 'c\n' });
    const clean = await beginProjectTurn(repo);
    expect(clean).toMatchObject({ state: 'ok', head: head(repo), clean: true });
    expect(clean.dirtyPaths.size).toBe(0);

    writeFileSync(join(repo, 'a.txt'), 'changed\n');
    writeFileSync(join(repo, 'b.txt'), 'staged\n');
    git(repo, 'add', 'b.txt');
    unlinkSync(join(repo, 'dir/c.txt'));
    writeFiles(repo, { 'new dir/with space.txt': 'n\n' });
    const dirty = await beginProjectTurn(repo);
    expect(dirty.clean).toBe(false);
    expect([...dirty.dirtyPaths].sort()).toEqual(['a.txt', 'b.txt', 'dir/c.txt', 'new dir/with space.txt']);
  });

  it('reports a missing folder and a folder that is not a repository', async () => {
    const gone = join(tempDir(), 'gone');
    expect(await beginProjectTurn(gone)).toMatchObject({ state: 'missing_folder', clean: false });
    expect(await beginProjectTurn(tempDir())).toMatchObject({ state: 'not_a_repo' });
  });

  it('handles a repository with no commits yet', async () => {
    const repo = makeRepo({});
    const snap = await beginProjectTurn(repo);
    expect(snap).toMatchObject({ state: 'ok', head: null, clean: true });
  });
});

describe('finishProjectTurn', () => {
  it('commits a clean tree\'s known writes as the agent, with message and trailers', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const before = head(repo);
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'a.txt': 'agent\n', 'src/new.ts': 'export {}\n' });
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt', './src/new.ts'], now: 1_700_000_000_000 }));
    expect(res.skipped).toBeNull();
    expect(res.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(res.paths.sort()).toEqual(['a.txt', 'src/new.ts']);
    expect(head(repo)).toBe(res.sha);
    expect(git(repo, 'rev-parse', 'HEAD^')).toBe(before);
    expect(git(repo, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%at')).toBe(
      'agent (gpt-test via Entity Memory) <agent@openprogram.local>|agent (gpt-test via Entity Memory) <agent@openprogram.local>|1700000000',
    );
    expect(git(repo, 'log', '-1', '--format=%B').trimEnd()).toBe(
      `[agent ${SID}] turn 3: Fix the parser\n\nOpenProgram-Session: ${SID}\nOpenProgram-Turn: 3`,
    );
    expect(git(repo, 'log', '-1', '--format=%(trailers:key=OpenProgram-Turn,valueonly)').trim()).toBe('3');
    // The real index agrees with the new HEAD: nothing left over in status.
    expect(status(repo)).toEqual([]);
  });

  it('cuts the subject at 60 code points of the first line, never inside a surrogate pair', async () => {
    const repo = makeRepo();
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'x.txt': 'x' });
    const message = `${'😀'.repeat(59)}ab\nsecond line`;
    await finishProjectTurn(snap, opts({ writtenPaths: ['x.txt'], userMessage: message }));
    expect(git(repo, 'log', '-1', '--format=%s')).toBe(`[agent ${SID}] turn 3: ${'😀'.repeat(59)}a`);
  });

  it('skips with dirty_tree when a written path was dirty at the start, and leaves everything in place', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    writeFileSync(join(repo, 'a.txt'), 'user edit\n');
    const before = head(repo);
    const snap = await beginProjectTurn(repo);
    writeFileSync(join(repo, 'a.txt'), 'user edit\nagent edit\n');
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt'] }));
    expect(res.sha).toBeNull();
    expect(res.skipped?.reason).toBe('dirty_tree');
    expect(res.skipped?.message).toContain('a.txt');
    expect(head(repo)).toBe(before);
    expect(status(repo)).toEqual([' M a.txt']);
  });

  it('commits known writes beside unrelated user changes, which stay uncommitted', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'user.txt': 'u\n' });
    writeFileSync(join(repo, 'user.txt'), 'user work\n');
    writeFiles(repo, { 'notes.txt': 'untracked user file\n' });
    const snap = await beginProjectTurn(repo);
    writeFileSync(join(repo, 'a.txt'), 'agent\n');
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt'] }));
    expect(res.paths).toEqual(['a.txt']);
    expect(git(repo, 'show', '--name-only', '--format=', 'HEAD')).toBe('a.txt');
    expect(status(repo)).toEqual([' M user.txt', '?? notes.txt']);
  });

  it('keeps the user\'s staged change staged and out of the agent commit', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'staged.txt': 's\n' });
    writeFileSync(join(repo, 'staged.txt'), 'staged by the user\n');
    git(repo, 'add', 'staged.txt');
    writeFileSync(join(repo, 'staged.txt'), 'staged by the user\nand more, unstaged\n');
    const snap = await beginProjectTurn(repo);
    writeFileSync(join(repo, 'a.txt'), 'agent\n');
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt'] }));
    expect(res.sha).not.toBeNull();
    expect(git(repo, 'show', '--name-only', '--format=', 'HEAD')).toBe('a.txt');
    expect(git(repo, 'show', 'HEAD:staged.txt')).toBe('s');
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('staged.txt');
    expect(git(repo, 'show', ':staged.txt')).toBe('staged by the user');
    expect(status(repo)).toEqual(['MM staged.txt']);
  });

  it('commits a deletion and a rename written by the agent', async () => {
    const repo = makeRepo({ 'old.txt': 'o\n', 'gone.txt': 'g\n' });
    const snap = await beginProjectTurn(repo);
    renameSync(join(repo, 'old.txt'), join(repo, 'new.txt'));
    rmSync(join(repo, 'gone.txt'));
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['old.txt', 'new.txt', 'gone.txt'] }));
    expect(res.paths.sort()).toEqual(['gone.txt', 'new.txt', 'old.txt']);
    expect(git(repo, 'ls-files')).toBe('new.txt');
    expect(status(repo)).toEqual([]);
  });

  it('never commits a path the project ignores', async () => {
    const repo = makeRepo({ '.gitignore': '.env\n', 'a.txt': 'a\n' });
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { '.env': 'SECRET=1\n', 'a.txt': 'agent\n' });
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['.env', 'a.txt'] }));
    expect(res.ignoredPaths).toEqual(['.env']);
    expect(git(repo, 'ls-files')).toBe('.gitignore\na.txt');
  });

  it('with unknown writes commits everything only when the tree was clean at the start', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'a.txt': 'agent\n', 'b/new.txt': 'n\n' });
    const res = await finishProjectTurn(snap, opts());
    expect(res.paths.sort()).toEqual(['a.txt', 'b/new.txt']);
    expect(status(repo)).toEqual([]);

    writeFiles(repo, { 'user.txt': 'user\n' });
    const dirty = await beginProjectTurn(repo);
    writeFiles(repo, { 'a.txt': 'agent again\n' });
    const skipped = await finishProjectTurn(dirty, opts({ turn: 4 }));
    expect(skipped).toMatchObject({ sha: null, skipped: { reason: 'dirty_tree' } });
    expect(head(repo)).toBe(res.sha);
  });

  it('commits into a repository without commits (unborn HEAD)', async () => {
    const repo = makeRepo({});
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'first.txt': 'hello\n' });
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['first.txt'] }));
    expect(res.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(git(repo, 'log', '-1', '--format=%ae')).toBe('agent@openprogram.local');
    expect(status(repo)).toEqual([]);
  });

  it('says why nothing was committed: disabled, missing folder, not a repo, nothing to commit', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'a.txt': 'agent\n' });
    expect((await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt'], autoCommit: false }))).skipped?.reason).toBe('disabled');
    expect((await finishProjectTurn(snap, opts({ writtenPaths: [] }))).skipped?.reason).toBe('nothing_to_commit');
    writeFiles(repo, { 'a.txt': 'a\n' });
    expect((await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt'] }))).skipped?.reason).toBe('nothing_to_commit');

    const plain = tempDir();
    const plainSnap = await beginProjectTurn(plain);
    expect((await finishProjectTurn(plainSnap, opts({ writtenPaths: ['x'] }))).skipped?.reason).toBe('not_a_repo');

    const moved = makeRepo();
    const movedSnap = await beginProjectTurn(moved);
    renameSync(moved, `${moved}-moved`);
    try {
      const res = await finishProjectTurn(movedSnap, opts({ writtenPaths: ['x'] }));
      expect(res.skipped?.reason).toBe('missing_folder');
      expect(res.skipped?.message).toContain(moved);
    } finally {
      renameSync(`${moved}-moved`, moved);
    }
  });

  it('refuses written paths that leave the project or enter .git', async () => {
    const repo = makeRepo();
    const snap = await beginProjectTurn(repo);
    await expect(finishProjectTurn(snap, opts({ writtenPaths: ['../x'] }))).rejects.toThrow(/escapes/);
    await expect(finishProjectTurn(snap, opts({ writtenPaths: ['.git/config'] }))).rejects.toThrow(/\.git/);
    await expect(finishProjectTurn(snap, opts({ writtenPaths: ['/etc/passwd'] }))).rejects.toThrow(/relative/);
  });

  it('commits on top of a user commit made during the turn', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'u.txt': 'u\n' });
    const snap = await beginProjectTurn(repo);
    writeFileSync(join(repo, 'u.txt'), 'user commit mid-turn\n');
    git(repo, 'commit', '-qam', 'user mid-turn');
    const userHead = head(repo);
    writeFileSync(join(repo, 'a.txt'), 'agent\n');
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt'] }));
    expect(git(repo, 'rev-parse', 'HEAD^')).toBe(userHead);
    expect(head(repo)).toBe(res.sha);
  });

  it('skips while a merge is in progress', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const snap = await beginProjectTurn(repo);
    writeFileSync(join(repo, '.git', 'MERGE_HEAD'), `${head(repo)}\n`);
    writeFileSync(join(repo, 'b.txt'), 'agent\n');
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['b.txt'] }));
    expect(res.skipped?.reason).toBe('dirty_tree');
    expect(res.skipped?.message).toContain('merge');
  });

  it('takes written names literally: a file called *.ts does not stage every .ts file', async () => {
    const repo = makeRepo({ 'a.ts': 'a\n', 'b.ts': 'b\n' });
    writeFileSync(join(repo, 'b.ts'), 'user edit\n');
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { '*.ts': 'odd name\n', 'a.ts': 'agent\n' });
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['*.ts'] }));
    expect(res.paths).toEqual(['*.ts']);
    expect(status(repo)).toEqual([' M a.ts', ' M b.ts']);
  });

  it('copes with a written file that no longer exists and with a written directory', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'gen/one.txt': '1\n', 'gen/two.txt': '2\n' });
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['scratch.tmp', 'gen'] }));
    expect(res.paths.sort()).toEqual(['gen/one.txt', 'gen/two.txt']);
    expect(status(repo)).toEqual([]);
  });

  it('keeps the commit when the user\'s git holds the index lock, and says the index is stale', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'a.txt': 'agent\n' });
    writeFileSync(join(repo, '.git', 'index.lock'), '');
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt'] }));
    expect(res.sha).toBe(head(repo));
    expect(res.indexUpdated).toBe(false);
    unlinkSync(join(repo, '.git', 'index.lock'));
  });

  it('replaces the real index only when nobody else changed it: a user git add mid-turn survives', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'u.txt': 'u\n' });
    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'a.txt': 'agent\n' });
    writeFileSync(join(repo, 'u.txt'), 'user staged during the turn\n');
    git(repo, 'add', 'u.txt');
    const res = await finishProjectTurn(snap, opts({ writtenPaths: ['a.txt'] }));
    expect(res.paths).toEqual(['a.txt']);
    expect(status(repo)).toEqual(['M  u.txt']);
  });
});

