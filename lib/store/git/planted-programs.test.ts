import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForbiddenPathError } from '../errors.js';
import { repack } from '../repo/repack.js';
import { SessionStore } from '../session-store.js';
import { runGit } from './git-cli.js';
import { assertRepoSafe } from './repo-safety.js';
import { agentTurn, git, makeRepo, openProjectStore, storesClosedAfterEach, tempDir, writeFiles } from '../testing/project-repos.js';

/**
 * DESIGN §2 over every path of the store that runs git in a user's folder or a session repo:
 * bind, the turn commit, undo and redo, the project diff and commit list, the session timeline
 * and diff, repack and the bundle export. Each planted command appends its name to one marker
 * file; after every path has run, the marker must not exist.
 */

/** A script that notes it ran (and passes stdin through, as a filter would). */
function plant(dir: string, name: string, marker: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho ${name} >> '${marker}'\ncat\n`);
  chmodSync(path, 0o755);
  return path;
}

const HOOKS = [
  'pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-checkout', 'post-merge', 'post-rewrite',
  'pre-push', 'reference-transaction', 'post-index-change', 'pre-auto-gc', 'fsmonitor-watchman', 'push-to-checkout',
];

function plantHooks(hooksDir: string, marker: string): void {
  mkdirSync(hooksDir, { recursive: true });
  for (const hook of HOOKS) plant(hooksDir, hook, marker);
}

/** Each config plant as `.git/config` text, with the .gitattributes it needs. */
function configPlants(scripts: string, marker: string): Array<{ name: string; config: string; attributes?: string; refused: RegExp | null }> {
  const run = (name: string) => plant(scripts, name, marker);
  const included = join(scripts, 'included.config');
  writeFileSync(included, `[core]\n\tfsmonitor = ${run('included-fsmonitor')}\n`);
  const hooksDir = join(scripts, 'hooks');
  plantHooks(hooksDir, marker);
  return [
    { name: 'core.fsmonitor', config: `[core]\n\tfsmonitor = ${run('fsmonitor')}\n`, refused: /core\.fsmonitor/ },
    // Not refused (git-cli's -c core.hooksPath=/dev/null wins), and still never run.
    { name: 'core.hooksPath', config: `[core]\n\thooksPath = ${hooksDir}\n`, refused: null },
    { name: 'filter clean/smudge/process', config: `[filter "evil"]\n\tclean = ${run('clean')}\n\tsmudge = ${run('smudge')}\n\tprocess = ${run('process')}\n\trequired = true\n`, attributes: '* filter=evil\n', refused: /filter\.evil/ },
    { name: 'include.path', config: `[include]\n\tpath = ${included}\n`, refused: /include\.path/ },
    { name: 'includeIf', config: `[includeIf "gitdir:/"]\n\tpath = ${included}\n`, refused: /includeif/i },
    { name: 'core.sshCommand', config: `[core]\n\tsshCommand = ${run('ssh')}\n`, refused: /core\.sshcommand/i },
    { name: 'core.pager', config: `[core]\n\tpager = ${run('pager')}\n`, refused: /core\.pager/ },
    { name: 'diff.external and a textconv', config: `[diff]\n\texternal = ${run('external-diff')}\n[diff "conv"]\n\ttextconv = ${run('textconv')}\n`, attributes: '* diff=conv\n', refused: /diff\.external|textconv/ },
    { name: 'core.editor', config: `[core]\n\teditor = ${run('editor')}\n[sequence]\n\teditor = ${run('sequence-editor')}\n`, refused: /core\.editor/ },
    {
      // A lazy fetch of a missing object through the ext:: transport runs its command.
      name: 'protocol.ext.allow with a promisor remote',
      config: `[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = origin\n[remote "origin"]\n\turl = ext::sh -c echo% protocol>>${marker}\n\tpromisor = true\n[protocol "ext"]\n\tallow = always\n[protocol]\n\tallow = always\n`,
      refused: /protocol/,
    },
  ];
}

function appendConfig(repo: string, text: string, attributes?: string): void {
  writeFileSync(join(repo, '.git', 'config'), readFileSync(join(repo, '.git', 'config'), 'utf8') + text);
  if (attributes) writeFileSync(join(repo, '.git', 'info', 'attributes'), attributes);
}

/** The git directory of a session repo under the state directory. */
function sessionRepo(stateDir: string, sessionId: string): string {
  const hit = (readdirSync(join(stateDir, 'sessions'), { recursive: true }) as string[]).find((p) => p.split('/').pop() === sessionId && existsSync(join(stateDir, 'sessions', p, '.git')));
  if (!hit) throw new Error(`no repo for ${sessionId}`);
  return join(stateDir, 'sessions', hit);
}

async function drain(stream: AsyncIterable<Buffer>): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += chunk.length;
  return bytes;
}

/** Every read path a session with a project has: its diff, timeline, project list and diff, bundle, repack. */
async function everyReadPath(store: SessionStore, stateDir: string, sessionId: string, projectId: string, sha: string | null): Promise<void> {
  const turns = await store.listTurns(sessionId);
  const commit = turns.commits[0];
  if (commit) await store.commitDiff(sessionId, commit.sha);
  await store.projectCommits(projectId).catch(() => undefined);
  if (sha) await store.projectCommitDiff(projectId, sha).catch(() => undefined);
  const bundle = await store.bundle(sessionId);
  expect(await drain(bundle.stdout)).toBeGreaterThan(0);
  await bundle.exited;
  await repack(sessionRepo(stateDir, sessionId));
}

describe('commands planted in a project repository never run, on any path', () => {
  const stores = storesClosedAfterEach();

  it('executable hooks in .git/hooks and in the session repo: bind, turn commit, undo, redo, diff, timeline, repack, bundle', async () => {
    const marker = join(tempDir(), 'ran');
    const workspace = tempDir('em-ws-');
    const projectDir = makeRepo({ 'README.md': 'hello\n' }, (mkdirSync(join(workspace, 'app')), join(workspace, 'app')));
    plantHooks(join(projectDir, '.git', 'hooks'), marker);
    const stateDir = tempDir('em-state-');
    const store = await SessionStore.open({ stateDir, workspaceRoot: workspace });
    stores.push(store);
    // Bind (hooks cannot be refused: there is always a hooks folder; they are switched off).
    const project = await store.createProject(projectDir, 'App');
    await store.createSession({ id: 'hooks', projectId: project.id });
    plantHooks(join(sessionRepo(stateDir, 'hooks'), '.git', 'hooks'), marker);
    const { end } = await agentTurn(store, 'hooks', projectDir, { 'README.md': 'agent\n', 'new.txt': 'new\n' });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    await everyReadPath(store, stateDir, 'hooks', project.id, end.projectCommit);
    await store.undoTurn('hooks', 1);
    expect(readFileSync(join(projectDir, 'README.md'), 'utf8')).toBe('hello\n');
    await store.redoTurn('hooks', 1);
    expect(readFileSync(join(projectDir, 'README.md'), 'utf8')).toBe('agent\n');
    expect(existsSync(marker)).toBe(false);
    // Sanity: the plants work, so their silence above means something.
    git(projectDir, 'commit', '-q', '--allow-empty', '-m', 'user');
    expect(readFileSync(marker, 'utf8')).toMatch(/pre-commit/);
  });

  it('a project whose config plants a command is refused at bind, with the key in the message', async () => {
    const marker = join(tempDir(), 'ran');
    const scripts = tempDir();
    for (const { name, config, attributes, refused } of configPlants(scripts, marker)) {
      if (!refused) continue;
      const { store, workspace } = await openProjectStore();
      stores.push(store);
      const dir = join(workspace, 'planted');
      mkdirSync(dir);
      makeRepo({ 'a.txt': 'a\n' }, dir);
      appendConfig(dir, config, attributes);
      const bound = store.createProject(dir, 'Planted');
      await expect(bound, name).rejects.toBeInstanceOf(ForbiddenPathError);
      await expect(bound, name).rejects.toThrow(refused);
      await expect(store.inspectProject(dir).then(() => assertRepoSafe(dir)), name).rejects.toThrow(refused);
      expect(existsSync(marker), `${name} ran at bind`).toBe(false);
    }
  }, 120_000);

  it('a command planted after bind: every path refuses or ignores it, and none runs', async () => {
    const marker = join(tempDir(), 'ran');
    const scripts = tempDir();
    for (const { name, config, attributes, refused } of configPlants(scripts, marker)) {
      const { store, stateDir, projectDir, project } = await openProjectStore();
      stores.push(store);
      await store.createSession({ id: 'plant', projectId: project.id });
      const first = await agentTurn(store, 'plant', projectDir, { 'README.md': 'turn one\n' });
      expect(first.end.projectCommit, name).toMatch(/^[0-9a-f]{40}$/);
      appendConfig(projectDir, config, attributes);
      appendConfig(sessionRepo(stateDir, 'plant'), config, attributes);
      if (attributes) writeFiles(projectDir, { '.gitattributes': attributes });

      const second = await agentTurn(store, 'plant', projectDir, { 'src/app.ts': 'export const x = 1;\n' });
      if (refused) {
        expect(second.end.projectCommit, name).toBeNull();
        expect(second.end.projectCommitSkipped?.reason, name).toBe('unsafe_config');
        expect(second.end.projectCommitSkipped?.message, name).toMatch(refused);
        await expect(store.undoTurn('plant', 1), name).rejects.toThrow(refused);
        await expect(store.projectCommitDiff(project.id, first.end.projectCommit!), name).rejects.toThrow(refused);
      } else {
        expect(second.end.projectCommit, name).toMatch(/^[0-9a-f]{40}$/);
        await store.undoTurn('plant', 2);
        await store.redoTurn('plant', 2);
      }
      await everyReadPath(store, stateDir, 'plant', project.id, first.end.projectCommit);
      expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '', `${name} ran`).toBe('');
    }
  }, 180_000);

  it('the same plants inside a checked-out submodule are refused, naming the submodule, and never run', async () => {
    const marker = join(tempDir(), 'ran');
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    const sub = join(projectDir, 'vendor');
    mkdirSync(sub);
    makeRepo({ 'x.txt': 'x\n' }, sub);
    git(projectDir, 'add', 'vendor');
    git(projectDir, 'commit', '-q', '-m', 'user: submodule');
    await store.createSession({ id: 'sub', projectId: project.id });
    for (const { name, config, attributes, refused } of configPlants(tempDir(), marker)) {
      if (!refused) continue;
      const original = readFileSync(join(sub, '.git', 'config'), 'utf8');
      appendConfig(sub, config, attributes);
      await expect(assertRepoSafe(projectDir), name).rejects.toThrow(/in submodule vendor/);
      const turn = await agentTurn(store, 'sub', projectDir, { [`${name.replace(/\W+/g, '-')}.txt`]: 'agent\n' });
      expect(turn.end.projectCommitSkipped?.reason, name).toBe('unsafe_config');
      writeFileSync(join(sub, '.git', 'config'), original);
    }
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('');
  }, 120_000);

  it('the hardened runner does not lazy-fetch through a planted transport, even past the check', async () => {
    const marker = join(tempDir(), 'ran');
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const plantText = configPlants(tempDir(), marker).find((p) => p.name.startsWith('protocol'))!.config;
    appendConfig(repo, plantText);
    const missing = '1234567890123456789012345678901234567890';
    const answer = await runGit(repo, ['cat-file', '-e', `${missing}^{commit}`], { okCodes: [0, 1, 128] });
    expect(answer.code).not.toBe(0);
    await runGit(repo, ['rev-list', '--parents', '-n', '1', 'HEAD']);
    expect(existsSync(marker)).toBe(false);
    // Sanity: an unhardened git does run the transport's command.
    try {
      git(repo, 'cat-file', '-e', `${missing}^{commit}`);
    } catch {
      // it fails after running the command
    }
    expect(readFileSync(marker, 'utf8')).toContain('protocol');
    rmSync(marker);
  });
});
