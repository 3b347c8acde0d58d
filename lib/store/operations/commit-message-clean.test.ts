import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { cleanCommitMessage } from '../text.js';
import { cleanupTempDirs, git, makeRepo, tempDir, writeFiles } from '../testing/project-repos.js';

const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  cleanupTempDirs();
});

/** `git fsck --strict` of a repository: empty when it is sound. */
function fsck(dir: string): string {
  return execFileSync('git', ['fsck', '--strict', '--no-progress'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } as unknown as NodeJS.ProcessEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('commit messages', () => {
  it('are cleaned of NUL and control characters; line breaks and tabs stay', () => {
    expect(cleanCommitMessage('a\0b\u0007c\u001b[31md\u007f\u009b\r\ne\tf\rg')).toBe('abc[31md\ne\tf\ng');
    expect(cleanCommitMessage('plain 𝒜 text\n')).toBe('plain 𝒜 text\n');
  });

  it('a NUL in the user message reaches neither the session nor the project commit; the node keeps it', async () => {
    const workspace = tempDir('em-ws-');
    mkdirSync(join(workspace, 'app'));
    const projectDir = makeRepo({ 'README.md': 'hi\n' }, join(workspace, 'app'));
    const stateDir = tempDir('em-state-');
    const store = await SessionStore.open({ stateDir, workspaceRoot: workspace });
    stores.push(store);
    const project = await store.createProject(projectDir, 'App');
    await store.createSession({ id: 's', projectId: project.id });
    await store.beginTurn('s');
    const text = 'fix\0 the\u001b[2J bug';
    await store.appendMessage('s', { role: 'user', content: text });
    writeFiles(projectDir, { 'a.txt': 'a\n' });
    const end = await store.finalizeTurn('s', { writtenPaths: ['a.txt'], model: 'm' });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(projectDir, 'log', '-1', '--format=%s')).toBe('[agent s] turn 1: fix the[2J bug');
    expect(fsck(projectDir)).toBe('');

    // A given commit message is cleaned the same way.
    await store.appendMessage('s', { role: 'user', content: 'again' });
    await store.finalizeTurn('s', { commitMessage: 'given\0 message\u0007' });
    const sessionDir = join(stateDir, 'sessions', 'projects', project.id, 's');
    expect(fsck(sessionDir)).toBe('');
    const log = git(sessionDir, 'log', '--format=%B');
    expect(log).toContain('turn: fix the[2J bug');
    expect(log).toContain('given message');
    expect(log).not.toMatch(/[\0\u0007\u001b]/);
    const nodeFile = readdirSync(join(sessionDir, 'history')).find((name) => name.startsWith('000000-u-'))!;
    expect(JSON.parse(readFileSync(join(sessionDir, 'history', nodeFile), 'utf8')).output).toBe(text);
  });
});
