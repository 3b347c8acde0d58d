import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { captureViews, createToken, e2eDataDir, e2eScratchDir, expect, MODEL_URL, mutate, query, signInBrowser, test } from '../fixtures';
import { CLAUDE, CODEX, claudeEnv, runAgent, writeCodexProxyConfig } from '../fixtures/real-agents';
import { SessionPage } from '../pages/session';

// DESIGN §14 "Resume in the agent", with the real Claude Code against the loopback model: the
// transcript `entity-memory resume` writes is one `claude --resume` takes, and that run is
// recorded in the same session as a branch from the chosen turn.

const BIN = join(process.cwd(), 'cli', 'bin.mjs');
const MODEL_ROOT = MODEL_URL.replace(/\/v1$/, '');

/**
 * `entity-memory` against the running server, asynchronously: a synchronous child would hold the
 * test's event loop while the server closes idle keep-alive sockets, and the next request would
 * go out on a closed one.
 */
async function entityMemory(args: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, '--data', e2eDataDir(), ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

interface Received {
  wire: string;
  body: { messages?: { role: string; content: unknown }[]; tools?: unknown[] };
}

async function modelRequests(): Promise<Received[]> {
  return ((await (await fetch(`${MODEL_ROOT}/requests`)).json()) as { requests: Received[] }).requests;
}

/** A message's text, whether its content is a string or blocks. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((block: { text?: unknown }) => (typeof block.text === 'string' ? block.text : '')).join('\n') : '';
}

async function claude(home: string, cwd: string, token: string, args: string[]): Promise<string> {
  const run = await runAgent(CLAUDE, ['-p', '--output-format', 'json', ...args], claudeEnv(home, token), cwd).done;
  expect(run.code, run.output).toBe(0);
  return run.output;
}

test('resume in Claude Code: the transcript written for turn 1 is accepted by the real claude -p --resume, the model gets the earlier messages, and the run is a branch of the same session from turn 1', async ({ context, page, user }) => {
  test.setTimeout(300_000);
  expect((await mutate(user.api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-resume-e2e' })).status).toBe(200);
  const { token } = await createToken(user.api, 'claude code');
  const scratch = mkdtempSync(join(e2eScratchDir(), 'resume-'));
  const home = join(scratch, 'home');
  const work = join(scratch, 'work');
  mkdirSync(home);
  mkdirSync(work);
  const folder = realpathSync(work);

  // The original session: two turns through the proxy.
  const original = randomUUID();
  await claude(home, folder, token, ['--session-id', original, '--', 'remember the word pelican']);
  await claude(home, folder, token, ['--resume', original, '--', 'now remember the word walrus']);
  const id = `cc-${original}`;
  await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id })).data?.turnCount ?? 0).toBe(2);
  const [, firstReply] = (await query<{ id: string; content: string }[]>(user.api, 'message.branch', { sessionId: id })).data;
  expect(firstReply!.content).toBe('You said: remember the word pelican');

  // `entity-memory resume` at turn 1, in the folder the agent will run in, with the agent's HOME.
  const written = await entityMemory(['--user', user.email, 'resume', id, '--at', '1', '--cwd', folder], { HOME: home });
  expect(written.status, written.stderr).toBe(0);
  const command = written.stdout.trim().split('\n').at(-1)!;
  const resumedId = /&& claude --resume ([0-9a-f-]{36})$/.exec(command)?.[1];
  expect(resumedId, written.stdout).toBeDefined();
  const transcript = join(home, '.claude', 'projects', folder.replace(/[^a-zA-Z0-9]/g, '-'), `${resumedId}.jsonl`);
  expect(existsSync(transcript)).toBe(true);
  expect(readFileSync(transcript, 'utf8')).not.toContain('walrus');

  const seen = (await modelRequests()).length;
  await claude(home, folder, token, ['--resume', resumedId!, '--', 'which word did I ask you to remember?']);
  // The model got the earlier messages of turn 1 (and not turn 2's) before the new prompt.
  const conversations = (await modelRequests())
    .slice(seen)
    .filter((request) => request.wire === 'anthropic' && (request.body.tools?.length ?? 0) > 0)
    // Claude Code 2.1 also sends its instructions as role-system messages: not the conversation.
    .map((request) => (request.body.messages ?? []).filter((message) => message.role !== 'system').map((message) => `${message.role}:${textOf(message.content).replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim()}`));
  expect(conversations.length).toBeGreaterThan(0);
  expect(conversations[0]).toEqual(['user:remember the word pelican', 'assistant:You said: remember the word pelican', 'user:which word did I ask you to remember?']);

  // Recorded in the same session, as a branch from turn 1: the first reply now has two continuations.
  await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id })).data.turnCount).toBe(3);
  expect((await query(user.api, 'session.get', { id: `cc-${resumedId}` })).status).toBe(404);
  const branch = (await query<{ content: string; siblings: string[] }[]>(user.api, 'message.branch', { sessionId: id })).data;
  expect(branch.map((message) => message.content)).toEqual([
    'remember the word pelican',
    'You said: remember the word pelican',
    'which word did I ask you to remember?',
    'You said: which word did I ask you to remember?',
  ]);
  expect(branch[2]!.siblings).toHaveLength(2);

  // The session page shows the fork, and the branch of turn 2 is still there.
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await session.goto(id);
  const fork = session.fork(2, 2);
  await expect(fork).toBeVisible();
  await expect(session.messages.getByText('which word did I ask you to remember?', { exact: true })).toBeVisible();
  await session.previousBranch(fork);
  await expect(session.messages.getByText('now remember the word walrus', { exact: true })).toBeVisible();

  // The page offers the same transcript as a download, with the command.
  await page.getByRole('button', { name: 'Resume in Claude Code' }).click();
  const dialog = page.getByRole('dialog', { name: 'Resume in Claude Code' });
  await dialog.getByLabel('Turn').fill('1');
  await dialog.getByLabel('Folder').fill(folder);
  await captureViews(page, 'resume-dialog');
  const download = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Download' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^[0-9a-f-]{36}\.jsonl$/);
  const downloaded = readFileSync(await file.path(), 'utf8');
  expect(downloaded).toContain('remember the word pelican');
  expect(downloaded).not.toContain('walrus');
  await expect(dialog.getByLabel('Command to continue')).toHaveText(`cd ${folder} && claude --resume ${file.suggestedFilename().replace(/\.jsonl$/, '')}`);
});

test('resume in Codex: the rollout written for turn 1 is accepted by the real codex exec resume, and that run is a branch of the same session from turn 1', async ({ user }) => {
  test.setTimeout(240_000);
  const { token } = await createToken(user.api, 'codex');
  const scratch = mkdtempSync(join(e2eScratchDir(), 'resume-codex-'));
  const home = join(scratch, 'home');
  const folder = join(scratch, 'work');
  mkdirSync(home);
  mkdirSync(folder);
  writeCodexProxyConfig(home, token);
  const env = { HOME: home, CODEX_HOME: home, ENTITY_MEMORY_TOKEN: 'sk-own-openai-key' };
  const codex = async (args: string[]): Promise<void> => {
    const run = await runAgent(CODEX, ['exec', ...args], env, realpathSync(folder)).done;
    expect(run.code, run.output).toBe(0);
  };
  await codex(['--skip-git-repo-check', 'remember the word pelican']);
  await expect.poll(async () => (await query<{ rows: unknown[] }>(user.api, 'session.list', { source: 'proxy:codex' })).data.rows.length).toBe(1);
  const id = (await query<{ rows: { id: string }[] }>(user.api, 'session.list', { source: 'proxy:codex' })).data.rows[0]!.id;
  await codex(['resume', '--skip-git-repo-check', id.replace(/^codex-/, ''), 'now remember the word walrus']);
  await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id })).data.turnCount).toBe(2);

  const written = await entityMemory(['--user', user.email, 'resume', id, '--at', '1', '--agent', 'codex', '--cwd', folder], { CODEX_HOME: home });
  expect(written.status, written.stderr).toBe(0);
  const resumedId = / && codex resume ([0-9a-f-]{36})$/.exec(written.stdout.trim())?.[1];
  expect(resumedId, written.stdout).toBeDefined();

  const seen = (await modelRequests()).length;
  await codex(['resume', '--skip-git-repo-check', resumedId!, 'which word did I ask you to remember?']);
  const sent = (await modelRequests()).slice(seen).filter((request) => request.wire === 'responses');
  const texts = JSON.stringify(sent.map((request) => request.body));
  expect(texts).toContain('remember the word pelican');
  expect(texts).not.toContain('walrus');

  await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id })).data.turnCount).toBe(3);
  expect((await query(user.api, 'session.get', { id: `codex-${resumedId}` })).status).toBe(404);
  const branch = (await query<{ content: string; siblings: string[] }[]>(user.api, 'message.branch', { sessionId: id })).data;
  const contents = branch.map((message) => message.content);
  expect(contents).toContain('remember the word pelican');
  expect(contents).toContain('which word did I ask you to remember?');
  expect(contents).not.toContain('now remember the word walrus');
  expect(branch[contents.indexOf('which word did I ask you to remember?')]!.siblings).toHaveLength(2);
});

test('resume refuses a turn the session does not have, with the reason, and writes nothing', async ({ context, page, user }) => {
  expect((await mutate(user.api, 'session.create', { id: 'resume-short' })).status).toBe(200);
  expect((await mutate(user.api, 'message.append', { sessionId: 'resume-short', message: { role: 'user', content: 'one' } })).status).toBe(200);
  expect((await mutate(user.api, 'message.append', { sessionId: 'resume-short', message: { role: 'assistant', content: 'two' } })).status).toBe(200);
  expect((await mutate(user.api, 'turn.finalize', { sessionId: 'resume-short' })).status).toBe(200);
  const refused = await mutate(user.api, 'resume.prepare', { sessionId: 'resume-short', agent: 'claude', turn: 5, cwd: '/tmp' });
  expect(refused.status).toBe(400);
  expect(refused.body.error?.message).toContain('there is no turn 5: the last turn is 1');
  expect(existsSync(join(e2eDataDir(), 'users', user.id, 'resume-links.json'))).toBe(false);

  await signInBrowser(context, user.api);
  await page.goto('/sessions/resume-short');
  await page.getByRole('button', { name: 'Resume in Codex' }).click();
  const dialog = page.getByRole('dialog', { name: 'Resume in Codex' });
  await dialog.getByLabel('Turn').fill('3');
  await expect(dialog.getByText('A turn from 1 to 1')).toBeVisible();
});
