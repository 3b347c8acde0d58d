import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ForbiddenPathError, PreconditionError } from '../errors.js';
import { beginProjectTurn, finishProjectTurn } from '../projects/auto-commit.js';
import { FileRecovery } from './file-recovery.js';
import { cleanupTempDirs, git, head, makeRepo, status, tempDir, writeFiles } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

const SID = 'sess0001';

function read(repo: string, path: string): string {
  return readFileSync(join(repo, path), 'utf8');
}

/** An agent turn: snapshot, write, optionally commit through the project lifecycle, seal. */
async function agentTurn(
  recovery: FileRecovery,
  repo: string,
  turn: number,
  files: Record<string, string | null>,
  options: { commit?: boolean } = {},
): Promise<string | null> {
  const snapshot = await beginProjectTurn(repo);
  for (const [path, content] of Object.entries(files)) {
    await recovery.snapshotBefore(SID, turn, repo, path);
    if (content === null) unlinkSync(join(repo, path));
    else writeFiles(repo, { [path]: content });
  }
  let sha: string | null = null;
  if (options.commit) {
    const res = await finishProjectTurn(snapshot, { writtenPaths: Object.keys(files), sessionId: SID, turn, userMessage: `turn ${turn}`, model: 'm' });
    sha = res.sha;
  }
  await recovery.sealTurn(SID, turn, repo, { commitSha: sha });
  return sha;
}

function setup(files: Record<string, string> = { 'a.txt': 'original a\n', 'b.txt': 'original b\n' }) {
  const stateDir = tempDir('op-state-');
  return { repo: makeRepo(files), recovery: new FileRecovery(stateDir), stateDir };
}

describe('FileRecovery without an agent commit (files restored)', () => {
  it('undoes edits, creations and deletions, and redoes them', async () => {
    const { repo, recovery, stateDir } = setup();
    writeFileSync(join(repo, 'user.txt'), 'the user was here\n');
    await agentTurn(recovery, repo, 1, { 'a.txt': 'agent a\n', 'new/file.txt': 'created\n', 'b.txt': null });
    expect(existsSync(join(stateDir, 'sessions', '.file-recovery', SID, '1', 'manifest.json'))).toBe(true);

    const undo = await recovery.undoTurn(SID, 1, repo);
    expect(undo).toEqual({
      turn: 1,
      method: 'files',
      restored: ['a.txt', 'b.txt', 'new/file.txt'],
      commit: null,
      changes: [
        { path: 'a.txt', change: 'modified' },
        { path: 'b.txt', change: 'deleted' },
        { path: 'new/file.txt', change: 'added' },
      ],
      summary: 'Restored a.txt. Recreated b.txt. Removed new/file.txt.',
    });
    expect(read(repo, 'a.txt')).toBe('original a\n');
    expect(read(repo, 'b.txt')).toBe('original b\n');
    expect(existsSync(join(repo, 'new/file.txt'))).toBe(false);
    expect(read(repo, 'user.txt')).toBe('the user was here\n');

    const redo = await recovery.redoTurn(SID, 1, repo);
    expect(redo.reapplied).toEqual(['a.txt', 'b.txt', 'new/file.txt']);
    expect(read(repo, 'a.txt')).toBe('agent a\n');
    expect(existsSync(join(repo, 'b.txt'))).toBe(false);
    expect(read(repo, 'new/file.txt')).toBe('created\n');
  });

  it('keeps the first snapshot of a path in a turn', async () => {
    const { repo, recovery } = setup();
    await recovery.snapshotBefore(SID, 1, repo, 'a.txt');
    writeFileSync(join(repo, 'a.txt'), 'first agent write\n');
    expect(await recovery.snapshotBefore(SID, 1, repo, './a.txt')).toEqual({ path: 'a.txt', recorded: false });
    writeFileSync(join(repo, 'a.txt'), 'second agent write\n');
    await recovery.sealTurn(SID, 1, repo);
    await recovery.undoTurn(SID, 1, repo);
    expect(read(repo, 'a.txt')).toBe('original a\n');
  });

  it('restores the file mode', async () => {
    const { repo, recovery } = setup({ 'run.sh': '#!/bin/sh\n' });
    chmodSync(join(repo, 'run.sh'), 0o755);
    await agentTurn(recovery, repo, 1, { 'run.sh': '#!/bin/sh\necho hi\n' });
    chmodSync(join(repo, 'run.sh'), 0o644);
    writeFileSync(join(repo, 'run.sh'), '#!/bin/sh\necho hi\n');
    await recovery.undoTurn(SID, 1, repo);
    expect(statSync(join(repo, 'run.sh')).mode & 0o777).toBe(0o755);
  });

  it('refuses when a file changed since the turn, and when a later turn touched it', async () => {
    const { repo, recovery } = setup();
    await agentTurn(recovery, repo, 1, { 'a.txt': 'turn 1\n' });
    await agentTurn(recovery, repo, 2, { 'a.txt': 'turn 2\n' });
    const error = await recovery.undoTurn(SID, 1, repo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionError);
    expect((error as Error).message).toMatch(/a\.txt changed since that turn/);
    expect(read(repo, 'a.txt')).toBe('turn 2\n');

    await recovery.undoTurn(SID, 2, repo);
    await recovery.undoTurn(SID, 1, repo);
    expect(read(repo, 'a.txt')).toBe('original a\n');

    writeFileSync(join(repo, 'a.txt'), 'user edit after undo\n');
    await expect(recovery.redoTurn(SID, 1, repo)).rejects.toThrow(/changed since the undo/);
    expect(read(repo, 'a.txt')).toBe('user edit after undo\n');
  });

  it('refuses to undo twice, to redo what is not undone, and turns with nothing recorded', async () => {
    const { repo, recovery } = setup();
    await agentTurn(recovery, repo, 1, { 'a.txt': 'x\n' });
    await expect(recovery.redoTurn(SID, 1, repo)).rejects.toThrow(/not undone/);
    await recovery.undoTurn(SID, 1, repo);
    await expect(recovery.undoTurn(SID, 1, repo)).rejects.toThrow(/already undone/);
    await expect(recovery.undoTurn(SID, 7, repo)).rejects.toThrow(/nothing to undo/);
    await recovery.snapshotBefore(SID, 8, repo, 'b.txt');
    await expect(recovery.undoTurn(SID, 8, repo)).rejects.toThrow(/not finished/);
  });

  it('survives a restart: a new instance undoes and redoes from the manifest', async () => {
    const { repo, recovery, stateDir } = setup();
    await agentTurn(recovery, repo, 1, { 'a.txt': 'agent\n' });
    await new FileRecovery(stateDir).undoTurn(SID, 1, repo);
    expect(read(repo, 'a.txt')).toBe('original a\n');
    await new FileRecovery(stateDir).redoTurn(SID, 1, repo);
    expect(read(repo, 'a.txt')).toBe('agent\n');
    expect(await new FileRecovery(stateDir).info(SID, 1)).toEqual({ turn: 1, state: 'applied', sealed: true, paths: ['a.txt'], commit: null });
  });

  it('never leaves the project or enters .git', async () => {
    const { repo, recovery } = setup();
    const outside = tempDir();
    writeFileSync(join(outside, 'secret'), 's');
    symlinkSync(outside, join(repo, 'link-dir'));
    symlinkSync(join(outside, 'secret'), join(repo, 'link-file'));
    await expect(recovery.snapshotBefore(SID, 1, repo, '../x')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(recovery.snapshotBefore(SID, 1, repo, '/etc/passwd')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(recovery.snapshotBefore(SID, 1, repo, '.git/config')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(recovery.snapshotBefore(SID, 1, repo, 'sub/.GIT/HEAD')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(recovery.snapshotBefore(SID, 1, repo, 'link-dir/secret')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(recovery.snapshotBefore(SID, 1, repo, 'link-dir/new.txt')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(recovery.snapshotBefore(SID, 1, repo, 'link-file')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(recovery.snapshotBefore('../evil', 1, repo, 'a.txt')).rejects.toThrow(/invalid session id/);
  });

  it('deleteSession removes every record of the session', async () => {
    const { repo, recovery, stateDir } = setup();
    await agentTurn(recovery, repo, 1, { 'a.txt': 'x\n' });
    await recovery.deleteSession(SID);
    expect(existsSync(join(stateDir, 'sessions', '.file-recovery', SID))).toBe(false);
  });
});

describe('FileRecovery with an agent commit (HEAD moved back)', () => {
  it('moves HEAD back past the agent commit and forward again on redo, keeping user work', async () => {
    const { repo, recovery } = setup();
    const userHead = head(repo);
    writeFileSync(join(repo, 'untracked-user.txt'), 'mine\n');
    const sha = await agentTurn(recovery, repo, 1, { 'a.txt': 'agent a\n', 'c.txt': 'new c\n' }, { commit: true });
    expect(sha).toBe(head(repo));

    const undo = await recovery.undoTurn(SID, 1, repo);
    expect(undo).toEqual({
      turn: 1,
      method: 'reset',
      restored: ['a.txt', 'c.txt'],
      commit: { from: sha, to: userHead },
      changes: [
        { path: 'a.txt', change: 'modified' },
        { path: 'c.txt', change: 'added' },
      ],
      summary: 'Restored a.txt. Removed c.txt.',
    });
    expect(head(repo)).toBe(userHead);
    expect(read(repo, 'a.txt')).toBe('original a\n');
    expect(existsSync(join(repo, 'c.txt'))).toBe(false);
    expect(status(repo)).toEqual(['?? untracked-user.txt']);

    const redo = await recovery.redoTurn(SID, 1, repo);
    expect(redo.commit).toEqual({ from: userHead, to: sha });
    expect(head(repo)).toBe(sha);
    expect(read(repo, 'c.txt')).toBe('new c\n');
    expect(status(repo)).toEqual(['?? untracked-user.txt']);
  });

  it('refuses when a later commit exists', async () => {
    const { repo, recovery } = setup();
    const sha = await agentTurn(recovery, repo, 1, { 'a.txt': 'agent\n' }, { commit: true });
    writeFileSync(join(repo, 'b.txt'), 'user commit\n');
    git(repo, 'commit', '-qam', 'user');
    const error = await recovery.undoTurn(SID, 1, repo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionError);
    expect((error as Error).message).toContain('a later commit exists');
    expect((error as Error).message).toContain(sha!.slice(0, 8));
    expect(read(repo, 'a.txt')).toBe('agent\n');
  });

  it('refuses while the tree has uncommitted changes to tracked files', async () => {
    const { repo, recovery } = setup();
    const sha = await agentTurn(recovery, repo, 1, { 'a.txt': 'agent\n' }, { commit: true });
    writeFileSync(join(repo, 'b.txt'), 'user edit\n');
    await expect(recovery.undoTurn(SID, 1, repo)).rejects.toThrow(/uncommitted changes \(b\.txt\)/);
    expect(head(repo)).toBe(sha);
    expect(read(repo, 'b.txt')).toBe('user edit\n');
  });

  it('refuses to rewrite a commit that is already on a remote-tracking branch', async () => {
    const { repo, recovery } = setup();
    const sha = await agentTurn(recovery, repo, 1, { 'a.txt': 'agent\n' }, { commit: true });
    git(repo, 'update-ref', 'refs/remotes/origin/main', sha!);
    await expect(recovery.undoTurn(SID, 1, repo)).rejects.toThrow(/origin\/main/);
    expect(head(repo)).toBe(sha);
  });

  it('undoes the first commit of a repository back to an unborn branch', async () => {
    const { repo, recovery } = setup({});
    const sha = await agentTurn(recovery, repo, 1, { 'first.txt': 'hello\n' }, { commit: true });
    expect(sha).not.toBeNull();
    await recovery.undoTurn(SID, 1, repo);
    expect(() => git(repo, 'rev-parse', '-q', '--verify', 'HEAD')).toThrow();
    expect(existsSync(join(repo, 'first.txt'))).toBe(false);
    expect(status(repo)).toEqual([]);
    await recovery.redoTurn(SID, 1, repo);
    expect(head(repo)).toBe(sha);
    expect(read(repo, 'first.txt')).toBe('hello\n');
    expect(status(repo)).toEqual([]);
  });

  it('restores ignored files the commit did not cover, alongside the reset', async () => {
    const { repo, recovery } = setup({ '.gitignore': '*.log\n', 'a.txt': 'a\n' });
    await agentTurn(recovery, repo, 1, { 'a.txt': 'agent\n', 'debug.log': 'log\n' }, { commit: true });
    const undo = await recovery.undoTurn(SID, 1, repo);
    expect(undo.restored).toEqual(['a.txt', 'debug.log']);
    expect(existsSync(join(repo, 'debug.log'))).toBe(false);
    expect(read(repo, 'a.txt')).toBe('a\n');
  });

  it('refuses redo when HEAD moved after the undo', async () => {
    const { repo, recovery } = setup();
    await agentTurn(recovery, repo, 1, { 'a.txt': 'agent\n' }, { commit: true });
    await recovery.undoTurn(SID, 1, repo);
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'user');
    await expect(recovery.redoTurn(SID, 1, repo)).rejects.toThrow(/moved on since the undo/);
  });
});
