import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeBranchRef } from './commit-log';
import { gitdirOf, initSessionRepo, loadCommitState } from './session-git';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const freshRepo = async (): Promise<{ repo: string; head: string }> => {
  const repo = mkdtempSync(join(tmpdir(), 'session-git-'));
  dirs.push(repo);
  return { repo, head: await initSessionRepo(repo, 1_700_000_000) };
};
const fsck = (repo: string): string => execFileSync('git', ['-C', repo, 'fsck', '--no-progress'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('session repo refs after a crash', () => {
  // The crash test's violation: a kill between creating a ref's temp file and renaming it.
  it('clears a killed ref write’s temp files, old place and new, before the repo is written again', async () => {
    const { repo, head } = await freshRepo();
    const gitdir = gitdirOf(repo);
    writeFileSync(join(gitdir, 'refs', 'heads', 'main.6324.e63ad4.170.tmp'), '');
    writeFileSync(join(gitdir, '.main.6324.e63ad4.171.tmp'), '');
    expect(() => fsck(repo)).toThrow(/invalid sha1 pointer/);
    const state = await loadCommitState(repo);
    expect(state.head).toBe(head);
    expect(readdirSync(join(gitdir, 'refs', 'heads'))).toEqual(['main']);
    expect(readdirSync(gitdir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(() => fsck(repo)).not.toThrow();
  });

  it('writes a retry branch whole, and refuses a name git would not take', async () => {
    const { repo, head } = await freshRepo();
    await writeBranchRef(repo, 'retry-n1', head);
    expect(execFileSync('git', ['-C', repo, 'rev-parse', 'refs/heads/retry-n1'], { encoding: 'utf8' }).trim()).toBe(head);
    expect(readdirSync(join(gitdirOf(repo), 'refs', 'heads')).sort()).toEqual(['main', 'retry-n1']);
    for (const bad of ['../main', 'a..b', '.hidden', 'x.lock', 'a/b', '']) {
      await expect(writeBranchRef(repo, bad, head)).rejects.toThrow(/not a branch name/);
    }
    expect(() => fsck(repo)).not.toThrow();
  });
});
