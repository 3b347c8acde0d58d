import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ForbiddenPathError } from '../errors.js';
import { beginProjectTurn, finishProjectTurn } from '../projects/auto-commit.js';
import { runGit } from './git-cli.js';
import { assertRepoSafe } from './repo-safety.js';
import { cleanupTempDirs, git, head, makeRepo, tempDir, writeFiles } from '../testing/project-repos.js';

/**
 * DESIGN §2: programs planted in a user's repository never run. Each plant writes a marker file
 * when executed; the markers must never appear.
 */

afterEach(cleanupTempDirs);

function plantScript(dir: string, name: string, marker: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho ran >> '${marker}'\ncat\n`);
  chmodSync(path, 0o755);
  return path;
}

const turn = { sessionId: 'sess0001', turn: 1, userMessage: 'go', model: 'm' };

describe('planted programs never run', () => {
  it('a pre-commit hook (and every other hook) in .git/hooks', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const marker = join(tempDir(), 'hook-ran');
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'reference-transaction', 'post-index-change', 'pre-auto-gc']) {
      plantScript(join(repo, '.git', 'hooks'), hook, marker);
    }
    // Sanity: the same hook does run when git is not hardened, so the plant itself works.
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'user commit');
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const snap = await beginProjectTurn(repo);
    writeFiles(repo, { 'a.txt': 'agent\n' });
    const res = await finishProjectTurn(snap, { ...turn, writtenPaths: ['a.txt'] });
    expect(res.sha).toBe(head(repo));
    expect(existsSync(marker)).toBe(false);
  });

  it('a core.fsmonitor command is refused up front, and never runs even if git is called directly', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const marker = join(tempDir(), 'fsmonitor-ran');
    const script = plantScript(tempDir(), 'fsmon.sh', marker);
    git(repo, 'config', 'core.fsmonitor', script);

    await expect(assertRepoSafe(repo)).rejects.toThrow(/core\.fsmonitor/);
    const snap = await beginProjectTurn(repo);
    expect(snap.state).toBe('unsafe_config');
    expect(snap.message).toContain('core.fsmonitor');
    writeFiles(repo, { 'a.txt': 'agent\n' });
    const res = await finishProjectTurn(snap, { ...turn, writtenPaths: ['a.txt'] });
    expect(res.skipped?.reason).toBe('unsafe_config');

    // Even bypassing the check, the runner's -c core.fsmonitor=false wins over the repo's config.
    await runGit(repo, ['status', '--porcelain']);
    await runGit(repo, ['add', '-A']);
    expect(existsSync(marker)).toBe(false);
    // Sanity: an unhardened git does run the plant.
    git(repo, 'status');
    expect(existsSync(marker)).toBe(true);
  });

  it('a filter.<x>.clean command with .gitattributes is refused before git add can run it', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const marker = join(tempDir(), 'filter-ran');
    const script = plantScript(tempDir(), 'clean.sh', marker);
    git(repo, 'config', 'filter.evil.clean', script);
    writeFiles(repo, { '.gitattributes': '* filter=evil\n' });
    // No git add by the test itself: that would run the filter.

    const snap = await beginProjectTurn(repo);
    expect(snap.state).toBe('unsafe_config');
    writeFiles(repo, { 'a.txt': 'agent\n' });
    const res = await finishProjectTurn(snap, { ...turn, writtenPaths: ['a.txt', '.gitattributes'] });
    expect(res.skipped).toMatchObject({ reason: 'unsafe_config' });
    expect(res.skipped?.message).toContain('filter.evil.clean');
    expect(existsSync(marker)).toBe(false);
    // Sanity: an unhardened git add does run the plant.
    git(repo, 'add', 'a.txt');
    expect(existsSync(marker)).toBe(true);
  });

  it('a filter added during the turn is caught at the end of the turn', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const marker = join(tempDir(), 'filter-ran');
    const snap = await beginProjectTurn(repo);
    expect(snap.state).toBe('ok');
    git(repo, 'config', 'filter.evil.clean', plantScript(tempDir(), 'clean.sh', marker));
    writeFiles(repo, { '.gitattributes': '* filter=evil\n', 'a.txt': 'agent\n' });
    const res = await finishProjectTurn(snap, { ...turn, writtenPaths: ['a.txt'] });
    expect(res.skipped?.reason).toBe('unsafe_config');
    expect(existsSync(marker)).toBe(false);
  });

  it('core.pager, diff.external and textconv do not run for log and diff', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const marker = join(tempDir(), 'diff-ran');
    const script = plantScript(tempDir(), 'diff.sh', marker);
    writeFiles(repo, { 'a.txt': 'changed\n' });
    // Written straight into the config file: this test calls the runner directly, past the check.
    writeFileSync(join(repo, '.git', 'config'), `[core]\n\tpager = ${script}\n[diff]\n\texternal = ${script}\n`, { flag: 'a' });
    await runGit(repo, ['diff']);
    await runGit(repo, ['log', '-p', '-1']);
    await runGit(repo, ['show', 'HEAD']);
    expect(existsSync(marker)).toBe(false);
    // Sanity: an unhardened git diff does run the external diff.
    git(repo, 'diff');
    expect(existsSync(marker)).toBe(true);
    await expect(assertRepoSafe(repo)).rejects.toBeInstanceOf(ForbiddenPathError);
  });

  it('a project folder inside another repository never reaches that repository', async () => {
    const outer = makeRepo({ 'outer.txt': 'o\n' });
    const inner = join(outer, 'project');
    mkdirSync(inner);
    const snap = await beginProjectTurn(inner);
    expect(snap.state).toBe('not_a_repo');
    const outerHead = head(outer);
    writeFiles(inner, { 'x.txt': 'x' });
    await finishProjectTurn(snap, { ...turn, writtenPaths: ['x.txt'] });
    expect(head(outer)).toBe(outerHead);
  });
});
