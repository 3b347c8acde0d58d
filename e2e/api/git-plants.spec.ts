import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { e2eScratchDir, expect, git, makeProjectRepo, mutate, query, test, workspaceOf, type Message, type ProjectSummary } from '../fixtures';
import { send, turnEnded } from './chat-helpers';

/**
 * DESIGN §2 over HTTP: commands planted in a user's project repository never run, whichever
 * way in (bind, a chat turn's auto-commit, undo/redo, the project and session diffs, the
 * timeline, the bundle export); links out of the project are refused and nothing outside is
 * written. Every plant appends its name to one marker file, which must never appear.
 */

const tool = (name: string, args: unknown) => `[[tool:${name} ${JSON.stringify(args)}]]`;

function scratch(label: string): string {
  const dir = join(e2eScratchDir(), `git-plants-${label}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

function plant(dir: string, name: string, marker: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho ${name} >> '${marker}'\ncat\n`);
  chmodSync(path, 0o755);
  return path;
}

const HOOKS = ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-checkout', 'post-merge', 'reference-transaction', 'post-index-change', 'pre-auto-gc', 'fsmonitor-watchman'];

/** Every command-running key of DESIGN §2 in one config text (and the attributes that arm the filter and textconv). */
function plantedConfig(scripts: string, marker: string): string {
  const run = (name: string) => plant(scripts, name, marker);
  const included = join(scripts, 'included.config');
  writeFileSync(included, `[core]\n\tfsmonitor = ${run('included-fsmonitor')}\n`);
  mkdirSync(join(scripts, 'hooks'), { recursive: true });
  for (const hook of HOOKS) plant(join(scripts, 'hooks'), hook, marker);
  return [
    `[core]\n\tfsmonitor = ${run('fsmonitor')}\n\thooksPath = ${join(scripts, 'hooks')}\n\tsshCommand = ${run('ssh')}\n\tpager = ${run('pager')}\n\teditor = ${run('editor')}`,
    `[filter "evil"]\n\tclean = ${run('clean')}\n\tsmudge = ${run('smudge')}\n\tprocess = ${run('process')}`,
    `[diff]\n\texternal = ${run('external-diff')}\n[diff "conv"]\n\ttextconv = ${run('textconv')}`,
    `[include]\n\tpath = ${included}\n[includeIf "gitdir:/"]\n\tpath = ${included}`,
    `[protocol "ext"]\n\tallow = always\n[remote "origin"]\n\turl = ext::sh -c echo% protocol>>${marker}`,
    '',
  ].join('\n');
}

function plantHooks(repo: string, marker: string): void {
  for (const hook of HOOKS) plant(join(repo, '.git', 'hooks'), hook, marker);
}

async function createProject(api: APIRequestContext, path: string): Promise<ProjectSummary> {
  const created = await mutate<ProjectSummary>(api, 'project.create', { path });
  if (created.status !== 200) throw new Error(`project.create failed: ${JSON.stringify(created.body)}`);
  return created.data;
}

/** Every read path over HTTP; none may answer 5xx. */
async function readEverything(api: APIRequestContext, sessionId: string, projectId: string, projectSha: string | null): Promise<void> {
  const timeline = await query<{ commits: { sha: string }[] }>(api, 'timeline.list', { sessionId });
  expect(timeline.status).toBe(200);
  const sessionSha = timeline.data.commits[0]!.sha;
  const reads: Array<[string, Record<string, unknown>]> = [
    ['timeline.diff', { sessionId, sha: sessionSha }],
    ['timeline.at', { sessionId, sha: sessionSha }],
    ['timeline.graph', { sessionId }],
    ['project.commits', { id: projectId }],
  ];
  if (projectSha) reads.push(['project.commitDiff', { id: projectId, sha: projectSha }]);
  for (const [path, input] of reads) {
    const answer = await query(api, path, input);
    expect(answer.status, path).toBeLessThan(500);
  }
  const bundle = await api.get(`/api/export/${sessionId}?format=bundle`);
  expect(bundle.status()).toBe(200);
  expect((await bundle.body()).subarray(0, 20).toString('utf8')).toMatch(/^# v[23] git bundle/);
}

test('hooks in the project repository never run: bind, turn commit, undo, redo, diffs, timeline, export', async ({ user }) => {
  const marker = join(scratch('hooks'), 'ran');
  const dir = realpathSync(makeProjectRepo(user.id, 'hooked'));
  plantHooks(dir, marker);
  const project = await createProject(user.api, 'hooked');
  const { sessionId } = await send(user.api, { projectId: project.id, content: `Write ${tool('write_file', { path: 'notes.md', content: '# notes\n' })}` });
  await turnEnded(user.api, sessionId);
  const commits = (await query<{ sha: string }[]>(user.api, 'project.commits', { id: project.id })).data;
  expect(commits).toHaveLength(1);
  await readEverything(user.api, sessionId, project.id, commits[0]!.sha);
  expect((await mutate(user.api, 'turn.undo', { sessionId, turn: 1 })).status).toBe(200);
  expect(existsSync(join(dir, 'notes.md'))).toBe(false);
  expect((await mutate(user.api, 'turn.redo', { sessionId, turn: 1 })).status).toBe(200);
  expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('# notes\n');
  expect(existsSync(marker)).toBe(false);
  // Sanity: the hooks do run for the person's own git.
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'person');
  expect(readFileSync(marker, 'utf8')).toContain('pre-commit');
});

test('a repository planting commands in its config is refused at bind with the keys named, and nothing runs', async ({ user }) => {
  const scripts = scratch('bind');
  const marker = join(scripts, 'ran');
  const dir = makeProjectRepo(user.id, 'planted');
  writeFileSync(join(dir, '.git', 'config'), readFileSync(join(dir, '.git', 'config'), 'utf8') + plantedConfig(scripts, marker));
  writeFileSync(join(dir, '.gitattributes'), '* filter=evil diff=conv\n');
  const bound = await mutate(user.api, 'project.create', { path: 'planted' });
  expect(bound.status).toBe(403);
  expect(bound.body.error?.message).toMatch(/refusing to run git .*core\.fsmonitor.*filter\.evil\.clean/);
  expect(bound.body.error?.message).toMatch(/protocol\.ext\.allow/);
  const inspected = await query(user.api, 'project.inspect', { path: 'planted' });
  expect(inspected.status).toBeLessThan(500);
  expect((await query<ProjectSummary[]>(user.api, 'project.list')).data.map((p) => p.name)).not.toContain('planted');
  expect(existsSync(marker)).toBe(false);
});

test('commands planted after bind: the turn is not auto-committed, undo and the diff refuse, nothing runs', async ({ user }) => {
  const scripts = scratch('after');
  const marker = join(scripts, 'ran');
  const dir = realpathSync(makeProjectRepo(user.id, 'later'));
  const project = await createProject(user.api, 'later');
  const first = await send(user.api, { projectId: project.id, content: `One ${tool('write_file', { path: 'one.md', content: '1\n' })}` });
  await turnEnded(user.api, first.sessionId);
  const [commit] = (await query<{ sha: string }[]>(user.api, 'project.commits', { id: project.id })).data;
  expect(commit?.sha).toMatch(/^[0-9a-f]{40}$/);

  writeFileSync(join(dir, '.git', 'config'), readFileSync(join(dir, '.git', 'config'), 'utf8') + plantedConfig(scripts, marker));
  writeFileSync(join(dir, '.git', 'info', 'attributes'), '* filter=evil diff=conv\n');
  const second = await mutate(user.api, 'chat.send', { sessionId: first.sessionId, content: `Two ${tool('write_file', { path: 'two.md', content: '2\n' })}` });
  expect(second.status).toBe(200);
  const session = await turnEnded(user.api, first.sessionId);
  expect(session.status).toBe('idle');
  expect(readFileSync(join(dir, 'two.md'), 'utf8')).toBe('2\n');
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(commit!.sha);

  const undo = await mutate(user.api, 'turn.undo', { sessionId: first.sessionId, turn: 1 });
  expect(undo.status).toBe(403);
  expect(undo.body.error?.message).toMatch(/core\.fsmonitor/);
  const diff = await query(user.api, 'project.commitDiff', { id: project.id, sha: commit!.sha });
  expect(diff.status).toBe(403);
  await readEverything(user.api, first.sessionId, project.id, commit!.sha);
  expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('');
});

test('links out of the project: bind refuses a linked folder, the file tool refuses a link, undo refuses a swapped-in link; nothing outside changes', async ({ user }) => {
  const outside = scratch('outside');
  writeFileSync(join(outside, 'secret.txt'), 'outside\n');
  mkdirSync(workspaceOf(user.id), { recursive: true });
  symlinkSync(outside, join(workspaceOf(user.id), 'linked'));
  const linked = await mutate(user.api, 'project.create', { path: 'linked' });
  expect(linked.status).toBe(403);
  expect(linked.body.error?.message).toMatch(/outside/);
  expect(existsSync(join(outside, '.git'))).toBe(false);

  const dir = realpathSync(makeProjectRepo(user.id, 'jailed'));
  symlinkSync(outside, join(dir, 'out'));
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'leak.txt'));
  const project = await createProject(user.api, 'jailed');
  const content = `Escape ${tool('write_file', { path: 'out/secret.txt', content: 'pwned\n' })} ${tool('write_file', { path: 'leak.txt', content: 'pwned\n' })} ${tool('write_file', { path: 'README.md', content: 'agent\n' })}`;
  const { sessionId } = await send(user.api, { projectId: project.id, content });
  await turnEnded(user.api, sessionId);
  const tools = (await query<{ messages: Message[] }>(user.api, 'message.nodes', { sessionId })).data.messages.filter((m) => m.role === 'tool');
  expect(tools.map((m) => m.metadata['refused'] === true)).toEqual([true, true, false]);
  expect(tools[0]!.content).toMatch(/outside the project folder/);
  expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside\n');

  // The agent's README.md swapped for a link out before undo: refused, the outside file untouched.
  rmSync(join(dir, 'README.md'));
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'README.md'));
  const undo = await mutate(user.api, 'turn.undo', { sessionId, turn: 1 });
  expect([403, 412]).toContain(undo.status);
  expect(undo.body.error?.message).toMatch(/README\.md|uncommitted changes/);
  expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside\n');
  expect(existsSync(join(outside, '.git'))).toBe(false);
});
