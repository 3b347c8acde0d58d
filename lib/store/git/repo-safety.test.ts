import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ForbiddenPathError } from '../errors.js';
import { assertRepoSafe, findConfigIssues, forbiddenConfigReason, locateGitDirs } from './repo-safety.js';
import { cleanupTempDirs, git, makeRepo, tempDir } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

describe('forbiddenConfigReason', () => {
  it.each([
    ['filter.lfs.clean', 'git-lfs clean -- %f'],
    ['filter.x.process', 'x'],
    ['include.path', '../evil.cfg'],
    ['includeIf.gitdir:~/.path', '/x'],
    ['core.sshcommand', 'ssh -o ProxyCommand=x'],
    ['core.editor', 'vim'],
    ['core.gitproxy', 'x'],
    ['core.askpass', 'x'],
    ['core.fsmonitor', '/tmp/fsmon.sh'],
    ['core.worktree', '/elsewhere'],
    ['credential.helper', 'store'],
    ['credential.https://example.com.helper', 'store'],
    ['diff.external', 'x'],
    ['diff.pdf.textconv', 'pdftotext'],
    ['diff.x.command', 'x'],
    ['merge.ours.driver', 'true'],
    ['mergetool.x.cmd', 'x'],
    ['sequence.editor', 'x'],
    ['uploadpack.packobjectshook', 'x'],
    ['remote.origin.uploadpack', 'x'],
    ['remote.origin.receivepack', 'x'],
    ['gpg.program', 'x'],
    ['gpg.ssh.program', 'x'],
    ['pager.log', 'less -R'],
    ['hook.pre-commit.command', 'x'],
    ['submodule.a.update', '!rm -rf /'],
    ['protocol.ext.allow', 'always'],
    ['protocol.file.allow', 'user'],
    ['protocol.allow', 'always'],
    ['remote.origin.url', 'ext::sh -c touch% /tmp/x'],
    ['remote.origin.pushurl', 'EXT::sh -c x'],
    ['url.ext::sh -c x.insteadof', 'https://'],
  ])('refuses %s', (key, value) => {
    expect(forbiddenConfigReason(key, value)).toContain(key);
  });

  it.each([
    ['core.fsmonitor', 'false'],
    ['core.fsmonitor', 'true'],
    ['core.hookspath', '.husky/_'],
    ['core.bare', 'false'],
    ['user.name', 'Someone'],
    ['remote.origin.url', 'git@github.com:x/y.git'],
    ['branch.main.merge', 'refs/heads/main'],
    ['pager.log', 'false'],
    ['credential.helper', ''],
    ['submodule.a.update', 'rebase'],
    ['protocol.ext.allow', 'never'],
    ['url.https://mirror.example/.insteadof', 'https://example/'],
  ])('accepts %s=%s', (key, value) => {
    expect(forbiddenConfigReason(key, value)).toBeNull();
  });
});

describe('assertRepoSafe', () => {
  it('accepts an ordinary repository and a folder without one', async () => {
    const repo = makeRepo();
    git(repo, 'config', 'core.hooksPath', '.husky/_');
    git(repo, 'config', 'remote.origin.url', 'https://example.com/x.git');
    await expect(assertRepoSafe(repo)).resolves.toMatchObject({ gitDir: join(repo, '.git') });
    await expect(assertRepoSafe(tempDir())).resolves.toBeNull();
  });

  it('refuses a repository whose own config sets a filter, naming the key', async () => {
    const repo = makeRepo();
    git(repo, 'config', 'filter.evil.clean', 'touch /tmp/never');
    const error = await assertRepoSafe(repo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenPathError);
    expect((error as Error).message).toContain('filter.evil.clean');
  });

  it('notices a config change made after an earlier check', async () => {
    const repo = makeRepo();
    await expect(findConfigIssues(repo)).resolves.toEqual([]);
    git(repo, 'config', 'core.sshCommand', 'evil');
    const issues = await findConfigIssues(repo);
    expect(issues.map((i) => i.key)).toEqual(['core.sshcommand']);
  });

  it('reads an include line as a refusal without following it', async () => {
    const repo = makeRepo();
    writeFileSync(join(repo, '.git', 'config'), '[include]\n\tpath = /nonexistent/evil\n', { flag: 'a' });
    await expect(assertRepoSafe(repo)).rejects.toThrow(/include\.path/);
  });

  it('checks the per-worktree config file too', async () => {
    const repo = makeRepo();
    writeFileSync(join(repo, '.git', 'config.worktree'), '[core]\n\teditor = evil\n');
    await expect(assertRepoSafe(repo)).rejects.toThrow(/core\.editor/);
  });

  it('follows a .git file and refuses git directories outside the allowed roots', async () => {
    const main = makeRepo();
    const linked = join(tempDir(), 'wt');
    git(main, 'worktree', 'add', '-q', linked);
    const dirs = await locateGitDirs(linked);
    expect(dirs?.commonDir).toBe(join(main, '.git'));
    await expect(assertRepoSafe(linked, { allowedRoots: [linked] })).rejects.toThrow(/outside the allowed roots/);
    await expect(assertRepoSafe(linked, { allowedRoots: [linked, main] })).resolves.not.toBeNull();
  });
});
