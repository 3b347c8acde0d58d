import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  appendMessage,
  createSession,
  expect,
  git,
  makeProjectRepo,
  mutate,
  query,
  stateDirOf,
  storeSnapshot,
  test,
  workspaceOf,
  type FinalizeTurnResult,
  type NodePage,
  type ProjectSummary,
  type TimelineCommit,
} from '../fixtures';

/** Issue 7's probe, store side: each defect it found, over HTTP against the running server. */

async function createProject(api: Parameters<typeof mutate>[0], path: string): Promise<ProjectSummary> {
  const created = await mutate<ProjectSummary>(api, 'project.create', { path });
  if (created.status !== 200) throw new Error(`project.create failed: ${JSON.stringify(created.body)}`);
  return created.data;
}

/** A turn that writes `files` in the project and ends with these written paths. */
async function turn(api: Parameters<typeof mutate>[0], sessionId: string, dir: string, files: Record<string, string>, writtenPaths: string[], userText = 'write it') {
  const begun = await mutate<{ turn: number; projectClean: boolean | null }>(api, 'turn.begin', { sessionId });
  expect(begun.status).toBe(200);
  await appendMessage(api, sessionId, { role: 'user', content: userText });
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  const end = await mutate<FinalizeTurnResult>(api, 'turn.finalize', { sessionId, writtenPaths, model: 'probe' });
  return { begun: begun.data, end };
}

/** `git fsck --strict`: empty output for a sound repository. */
function fsck(dir: string): string {
  return execFileSync('git', ['fsck', '--strict', '--no-progress'], {
    cwd: dir,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

test('1. a filter planted in a submodule never runs: create refuses it, a turn skips it as unsafe_config', async ({ user }) => {
  mkdirSync(workspaceOf(user.id), { recursive: true });
  const marker = join(workspaceOf(user.id), 'planted-ran');
  const script = join(workspaceOf(user.id), 'clean.sh');
  writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
  chmodSync(script, 0o755);
  const plant = (dir: string) => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    git(sub, 'init', '-q', '-b', 'main');
    writeFileSync(join(sub, '.gitattributes'), '* filter=s\n');
    writeFileSync(join(sub, 'x.txt'), 'x\n');
    git(sub, 'add', '-A');
    git(sub, 'commit', '-q', '-m', 'sub');
    git(dir, 'add', 'sub');
    git(dir, 'commit', '-q', '-m', 'add submodule');
    git(sub, 'config', 'filter.s.clean', script);
    appendFileSync(join(sub, 'x.txt'), 'dirty\n');
  };

  const planted = makeProjectRepo(user.id, 'planted');
  plant(planted);
  const refused = await mutate(user.api, 'project.create', { path: planted });
  expect(refused.status).toBe(403);
  expect(refused.body.error?.message).toMatch(/in submodule sub: filter\.s\.clean/);

  // Planted after the project was registered: the turn runs, the project commit is skipped.
  const later = makeProjectRepo(user.id, 'planted-later');
  const project = await createProject(user.api, later);
  await createSession(user.api, { id: 'sub-probe', projectId: project.id });
  plant(later);
  const { begun, end } = await turn(user.api, 'sub-probe', later, { 'a.txt': 'agent\n' }, ['a.txt', 'sub']);
  expect(begun.projectClean).toBe(false);
  expect(end.status).toBe(200);
  expect(end.data.projectCommit).toBeNull();
  expect(end.data.projectCommitSkipped).toMatchObject({ reason: 'unsafe_config' });
  expect((await query(user.api, 'project.commits', { id: project.id })).status).toBe(403);
  expect(existsSync(marker)).toBe(false);
});

test('2. JSON nested 5,000 deep is a 400 naming the field, and leaves no node file', async ({ user }) => {
  await createSession(user.api, { id: 'deep' });
  await appendMessage(user.api, 'deep', { id: 'a1', role: 'assistant', content: 'calling' });
  // Written out by hand: JSON.stringify itself overflows its stack at this depth.
  const deep = `${'{"d":'.repeat(5_000)}"leaf"${'}'.repeat(5_000)}`;
  const snapshot = storeSnapshot(user.id);
  const cases: Array<[string, string]> = [
    [`{"role":"user","content":"x","metadata":{"deep":${deep}}}`, 'metadata'],
    [`{"role":"assistant","content":"x","input":${deep}}`, 'input'],
    [`{"role":"tool","calledBy":"a1","content":${deep}}`, 'content'],
  ];
  for (const [message, field] of cases) {
    const response = await user.api.post('/api/trpc/message.append', {
      headers: { 'content-type': 'application/json' },
      data: `{"sessionId":"deep","message":${message}}`,
    });
    expect(response.status(), field).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(`message.${field}: is nested deeper than 64 levels`);
  }
  expect(storeSnapshot(user.id)).toBe(snapshot);
});

test('3. git failures are reasons or 412s: an empty .git, a path through a symlinked directory', async ({ user }) => {
  const empty = join(workspaceOf(user.id), 'empty-git');
  mkdirSync(join(empty, '.git'), { recursive: true });
  const refused = await mutate(user.api, 'project.create', { path: empty });
  expect(refused.status).toBe(412);
  expect(refused.body.error?.message).toMatch(/not a usable git repository/);

  const dir = makeProjectRepo(user.id, 'emptied');
  const project = await createProject(user.api, dir);
  await createSession(user.api, { id: 'emptied', projectId: project.id });
  rmSync(join(dir, '.git'), { recursive: true });
  mkdirSync(join(dir, '.git'));
  expect((await query(user.api, 'project.commits', { id: project.id })).status).toBe(412);
  const broken = await turn(user.api, 'emptied', dir, { 'a.txt': 'a\n' }, ['a.txt']);
  expect(broken.begun.projectClean).toBe(false);
  expect(broken.end.status).toBe(200);
  expect(broken.end.data.projectCommitSkipped).toMatchObject({ reason: 'not_a_repo' });

  const linked = makeProjectRepo(user.id, 'linked');
  mkdirSync(join(linked, 'real'));
  writeFileSync(join(linked, 'real', 'keep.txt'), 'k\n');
  symlinkSync('real', join(linked, 'link'));
  git(linked, 'add', '-A');
  git(linked, 'commit', '-q', '-m', 'a symlinked directory');
  const linkedProject = await createProject(user.api, linked);
  await createSession(user.api, { id: 'linked', projectId: linkedProject.id });
  const through = await turn(user.api, 'linked', linked, { 'real/new.txt': 'n\n' }, ['link/new.txt']);
  expect(through.end.status).toBe(200);
  expect(through.end.data.projectCommitSkipped).toMatchObject({ reason: 'unsafe_path' });
  expect((await query<{ status: string }>(user.api, 'session.get', { id: 'linked' })).data.status).toBe('idle');
});

test('5. a NUL in the user message reaches no commit message; the message keeps it', async ({ user }) => {
  const dir = makeProjectRepo(user.id, 'nul');
  const project = await createProject(user.api, dir);
  await createSession(user.api, { id: 'nul', projectId: project.id });
  const text = 'fix\u0000 it\u001b[0m now';
  const { end } = await turn(user.api, 'nul', dir, { 'a.txt': 'a\n' }, ['a.txt'], text);
  expect(end.data.projectCommit).toMatch(/^[0-9a-f]{40}$/);
  expect(git(dir, 'log', '-1', '--format=%s')).toBe('[agent nul] turn 1: fix it[0m now');
  expect(fsck(dir)).toBe('');
  expect(fsck(join(stateDirOf(user.id), 'sessions', 'projects', project.id, 'nul'))).toBe('');
  const nodes = (await query<NodePage>(user.api, 'message.nodes', { sessionId: 'nul' })).data.messages;
  expect(nodes[0]!.content).toBe(text);
});

test('6. timeline.list takes only cursors the server issued', async ({ user }) => {
  await createSession(user.api, { id: 'cursor' });
  for (let i = 0; i < 3; i++) {
    await appendMessage(user.api, 'cursor', { role: 'user', content: `q${i}` });
    await mutate(user.api, 'turn.finalize', { sessionId: 'cursor' });
  }
  const first = await query<{ commits: TimelineCommit[]; nextCursor: string }>(user.api, 'timeline.list', { sessionId: 'cursor', limit: 1 });
  const second = await query<{ commits: TimelineCommit[] }>(user.api, 'timeline.list', { sessionId: 'cursor', limit: 1, cursor: first.data.nextCursor });
  expect(second.status).toBe(200);
  expect(second.data.commits.map((c) => c.turn)).toEqual([2]);
  const sha = second.data.commits[0]!.sha;
  const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  for (const cursor of [forge([sha, -5]), forge([sha, 1e308]), forge(['f'.repeat(40), 2]), `${forge([sha, 7])}.${first.data.nextCursor.split('.')[1]}`]) {
    const answer = await query(user.api, 'timeline.list', { sessionId: 'cursor', limit: 1, cursor });
    expect(answer.status, cursor).toBe(400);
    expect(answer.body.error?.message).toMatch(/invalid cursor/);
  }
});

test('9. message.nodes is paged: {messages, nextCursor}, limit 1-200, its own cursors only', async ({ user }) => {
  await createSession(user.api, { id: 'paged' });
  for (let i = 0; i < 5; i++) await appendMessage(user.api, 'paged', { role: 'user', content: `m${i}` });
  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: NodePage; status: number } = await query<NodePage>(user.api, 'message.nodes', { sessionId: 'paged', limit: 2, cursor });
    expect(page.status).toBe(200);
    expect(page.data.messages.length).toBeLessThanOrEqual(2);
    seen.push(...page.data.messages.map((m) => m.seq));
    cursor = page.data.nextCursor;
  } while (cursor);
  expect(seen).toEqual([0, 1, 2, 3, 4]);
  expect((await query<NodePage>(user.api, 'message.nodes', { sessionId: 'paged' })).data).toMatchObject({ nextCursor: null });
  expect((await query(user.api, 'message.nodes', { sessionId: 'paged', limit: 201 })).status).toBe(400);
  expect((await query(user.api, 'message.nodes', { sessionId: 'paged', cursor: 'junk' })).status).toBe(400);
});
