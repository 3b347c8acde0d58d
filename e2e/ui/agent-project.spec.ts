import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { createToken, e2eScratchDir, expect, git, makeProjectRepo, mutate, query, signInBrowser, test, workspaceOf, type ProjectSummary, type TestUser } from '../fixtures';
import { CLAUDE, CODEX, claudeEnv, runAgent, writeCodexProxyConfig } from '../fixtures/real-agents';
import { TimelinePage } from '../pages/timeline';

// DESIGN §14 with the real agents against the loopback model: an agent working in a registered
// project folder commits its edits there, one project commit per exchange that changed files.
const AGENT_IDENT = /^agent \(.+ via Entity Memory\) <agent@openprogram\.local>$/;

async function runClaude(user: TestUser, cwd: string, prompt: string): Promise<string> {
  const set = await mutate(user.api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-agent-project-e2e' });
  expect(set.status).toBe(200);
  const { token } = await createToken(user.api, 'claude code');
  const home = mkdtempSync(join(e2eScratchDir(), 'claude-home-'));
  const sessionId = randomUUID();
  const run = await runAgent(CLAUDE, ['-p', '--session-id', sessionId, '--permission-mode', 'acceptEdits', '--allowedTools', 'Write Bash', '--', prompt], claudeEnv(home, token), cwd).done;
  expect(run.code, run.output).toBe(0);
  return `cc-${sessionId}`;
}

/** Commits after `since` on the folder's branch, newest first. */
function commitsSince(dir: string, since: string): string[] {
  const out = git(dir, 'rev-list', `${since}..HEAD`);
  return out ? out.split('\n') : [];
}

test('Claude Code in a registered project: Write and Bash edits make one agent commit with the trailers, the session is in the project, Undo restores the tree', async ({ context, page, user }) => {
  test.setTimeout(240_000);
  const folder = realpathSync(makeProjectRepo(user.id, 'cc-app'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: folder, name: 'CC App' })).data;
  const initial = git(folder, 'rev-parse', 'HEAD');
  const prompt = `make two files [[tool:Write {"file_path":"${folder}/a.txt","content":"from Write\\n"}]] [[tool:Bash {"command":"echo from-bash > b.txt","description":"write b.txt"}]]`;
  const id = await runClaude(user, folder, prompt);
  expect(readFileSync(join(folder, 'a.txt'), 'utf8')).toBe('from Write\n');
  expect(readFileSync(join(folder, 'b.txt'), 'utf8')).toBe('from-bash\n');

  await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id })).data?.turnCount ?? 0).toBe(2);
  const session = (await query<{ projectId: string; agentFolder: unknown }>(user.api, 'session.get', { id })).data;
  expect(session).toMatchObject({ projectId: project.id, agentFolder: null });
  const commits = commitsSince(folder, initial);
  expect(commits).toHaveLength(1);
  const [sha] = commits;
  expect(git(folder, 'show', '--name-only', '--format=', sha!).split('\n').sort()).toEqual(['a.txt', 'b.txt']);
  expect(git(folder, 'log', '-1', '--format=%an <%ae>', sha!)).toMatch(AGENT_IDENT);
  const body = git(folder, 'log', '-1', '--format=%B', sha!);
  expect(body).toContain(`OpenProgram-Session: ${id}`);
  expect(body).toContain('OpenProgram-Turn: 2');
  expect(git(folder, 'status', '--porcelain')).toBe('');

  await signInBrowser(context, user.api);
  await page.goto(`/sessions/${id}`);
  await expect(page.getByRole('button', { name: 'Project: CC App' })).toBeVisible();
  const timeline = new TimelinePage(page);
  await timeline.goto(id);
  const turn = timeline.turn(2);
  await expect(turn.getByRole('region', { name: 'Project commit' })).toContainText(sha!.slice(0, 7));
  await turn.getByRole('button', { name: 'Undo file edits of turn 2' }).click();
  await expect(turn.getByRole('status')).toContainText('Removed');
  expect(existsSync(join(folder, 'a.txt'))).toBe(false);
  expect(existsSync(join(folder, 'b.txt'))).toBe(false);
  expect(git(folder, 'rev-parse', 'HEAD')).toBe(initial);
  expect(git(folder, 'status', '--porcelain')).toBe('');
});

test('Codex running a command in a registered project: the file it wrote is one agent commit of the session, which is in the project', async ({ user }) => {
  test.setTimeout(180_000);
  const folder = realpathSync(makeProjectRepo(user.id, 'codex-app'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: folder, name: 'Codex App' })).data;
  const initial = git(folder, 'rev-parse', 'HEAD');
  const { token } = await createToken(user.api, 'codex');
  const home = mkdtempSync(join(e2eScratchDir(), 'codex-home-'));
  writeCodexProxyConfig(home, token);
  const prompt = 'write c.txt [[tool:exec_command {"cmd":"echo from-codex > c.txt","login":false}]]';
  const run = await runAgent(CODEX, ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt], { HOME: home, CODEX_HOME: home, ENTITY_MEMORY_TOKEN: 'sk-own-openai-key' }, folder).done;
  expect(run.code, run.output).toBe(0);
  expect(readFileSync(join(folder, 'c.txt'), 'utf8')).toBe('from-codex\n');
  await expect.poll(async () => commitsSince(folder, initial).length).toBe(1);
  const rows = (await query<{ rows: { id: string }[] }>(user.api, 'session.list', { source: 'proxy:codex' })).data.rows;
  expect(rows).toHaveLength(1);
  const id = rows[0]!.id;
  expect((await query<{ projectId: string }>(user.api, 'session.get', { id })).data.projectId).toBe(project.id);
  const [sha] = commitsSince(folder, initial);
  expect(git(folder, 'show', '--name-only', '--format=', sha!)).toBe('c.txt');
  expect(git(folder, 'log', '-1', '--format=%an <%ae>', sha!)).toMatch(AGENT_IDENT);
  expect(git(folder, 'log', '-1', '--format=%B', sha!)).toContain(`OpenProgram-Session: ${id}`);
});

test('an agent in a folder that is no project stays in Home; "Add … as a project" makes it one and moves the session there', async ({ context, page, user }) => {
  test.setTimeout(180_000);
  const folder = join(workspaceOf(user.id), 'loose-folder');
  mkdirSync(folder, { recursive: true });
  const id = await runClaude(user, folder, `note it [[tool:Write {"file_path":"${folder}/note.txt","content":"kept?\\n"}]]`);
  await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id })).data?.turnCount ?? 0).toBe(2);
  expect((await query<{ projectId: string; agentFolder: unknown }>(user.api, 'session.get', { id })).data).toMatchObject({ projectId: 'default', agentFolder: { path: folder, addable: true } });
  await signInBrowser(context, user.api);
  await page.goto(`/sessions/${id}`);
  await expect(page.getByRole('button', { name: 'Project: Home' })).toBeVisible();
  await page.getByRole('button', { name: `Add ${folder} as a project to keep the agent's edits` }).click();
  await expect(page.getByRole('button', { name: 'Project: loose-folder' })).toBeVisible();
  await expect(page.getByRole('button', { name: /as a project to keep/ })).toHaveCount(0);
  const projects = (await query<ProjectSummary[]>(user.api, 'project.list')).data;
  const added = projects.find((project) => project.path === realpathSync(folder));
  expect(added).toBeDefined();
  expect((await query<{ projectId: string }>(user.api, 'session.get', { id })).data.projectId).toBe(added!.id);
  expect(git(folder, 'rev-parse', '--is-inside-work-tree')).toBe('true');
});
