import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { BASE_URL, MODEL_NAME, bearer, createToken, expect, mutate, query, signInBrowser, test } from '../fixtures';
import { SessionPage } from '../pages/session';
import { Sidebar } from '../pages/sidebar';

// Issue 28 items 4 and 6: one session of each way in, read alike.
const FIXTURES = resolve(process.cwd(), '..', 'shared', 'fixtures', 'import');
const CC_MAIN = join(FIXTURES, 'claude-code', '-home-user-proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl');
const CC_AGENT = join(FIXTURES, 'claude-code', '-home-user-proj', 'agent-5e1f9a2b.jsonl');
const CODEX = join(FIXTURES, 'codex', '2026', '11', '20', 'rollout-2026-11-20T10-00-00-019aa1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b.jsonl');
const CHATGPT = join(FIXTURES, 'chatgpt', 'conversations.json');
/** The Codex rollout's title: its first prompt (it has no summary; its last prompt is another). */
const CODEX_TITLE = 'Add a --verbose flag to the CLI in src/cli.py.';

test('every way in names its agent once with the way in beside it, titles from the first prompt, one Claude Code in the agent filter; Retry and Edit in an agent\'s session say who answers and keep its title', async ({ page, context, user }) => {
  test.setTimeout(120_000);
  const { token } = await createToken(user.api, 'one shape');

  // The API, with a token: an agent that names itself.
  const api = await mutate<{ id: string }>(user.api, 'session.create', { agentId: 'claude-code', source: 'api', title: 'Written through the API' }, bearer(token));
  expect(api.status).toBe(200);
  await mutate(user.api, 'message.append', { sessionId: api.data.id, message: { role: 'user', content: 'hello from a script' } }, bearer(token));

  // The recording proxy: Claude Code's session header through the Anthropic SDK, against the loopback model server.
  const claudeSession = randomUUID();
  const anthropic = new Anthropic({
    apiKey: 'sk-ant-own',
    baseURL: `${BASE_URL}/proxy/anthropic`,
    defaultHeaders: { 'x-entity-memory-token': token, 'x-claude-code-session-id': claudeSession },
    maxRetries: 0,
  });
  // Claude Code's own side calls carry no tools and are not recorded: this one offers a tool.
  await anthropic.messages.create({
    model: 'claude-test',
    max_tokens: 50,
    tools: [{ name: 'Bash', description: 'run a command', input_schema: { type: 'object', properties: {} } }],
    messages: [{ role: 'user', content: 'Explain the flaky test' }],
  });
  const recordedId = `cc-${claudeSession}`;
  await expect.poll(async () => (await query<{ source: string }>(user.api, 'session.get', { id: recordedId })).data?.source).toBe('proxy:claude-code');

  await signInBrowser(context, user.api);
  // The web chat: the person's own session.
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Message' }).fill('Plan My Garden');
  await page.getByRole('button', { name: 'Send' }).click();
  const session = new SessionPage(page);
  await expect(session.message('Assistant')).toContainText('You said: Plan My Garden', { timeout: 20_000 });

  // The Import page: Claude Code (a session and its sub-agent), Codex, ChatGPT.
  await page.goto('/import');
  await page.getByLabel('Files to import').setInputFiles([CC_MAIN, CC_AGENT, CODEX, CHATGPT]);
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(page.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '100', { timeout: 30_000 });

  const sidebar = new Sidebar(page);
  const writer = (title: string) => sidebar.row(title);
  // One name per agent, the way in beside it: never "main via claude-code".
  await expect(writer('Written through the API')).toContainText('Claude Code · API');
  await expect(sidebar.nav.locator(`[data-session-row="${recordedId}"]`)).toContainText('Claude Code · recorded');
  await expect(writer('Fix parse_date dropping UTC offsets')).toContainText('Claude Code · imported');
  await expect(writer(CODEX_TITLE)).toContainText('Codex · imported');
  await expect(writer('Sourdough starter smell')).toContainText('ChatGPT · imported');
  await expect(writer('Plan My Garden')).not.toContainText('·');
  await expect(sidebar.nav.getByText(/ via /)).toHaveCount(0);

  // The Chats page's agent filter: Claude Code once, whichever way its sessions came in.
  await page.goto('/chats');
  const main = page.getByRole('main');
  const agentFilter = main.getByRole('combobox', { name: 'Agent' });
  const options = await agentFilter.locator('option').allTextContents();
  expect(options.filter((option) => option.startsWith('Claude Code'))).toEqual(['Claude Code (4)']);
  expect(options).toEqual(expect.arrayContaining(['Codex (1)', 'ChatGPT (3)', 'You, in the web chat (1)']));
  // Picked again until the page has hydrated (a pick before it is lost).
  await expect(async () => {
    await agentFilter.selectOption({ label: 'Claude Code (4)' });
    await expect(main.getByRole('link', { name: 'Plan My Garden', exact: true })).toHaveCount(0, { timeout: 1_000 });
  }).toPass();
  for (const title of ['Written through the API', 'Fix parse_date dropping UTC offsets']) await expect(main.getByRole('link', { name: title, exact: true })).toBeVisible();
  await expect(main.locator(`[data-session-row="${recordedId}"]`)).toBeVisible();
  await expect(main.getByRole('link', { name: CODEX_TITLE, exact: true })).toHaveCount(0);
  await expect(page).toHaveURL(/agent=Claude\+Code/);

  // An agent's session: Retry and Edit say that the web chat's model answers, and its title stays.
  await page.goto(`/sessions/codex-019aa1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b`);
  await expect(session.title).toHaveText(CODEX_TITLE);
  await expect(page.getByText('Written by Codex')).toBeVisible();
  const takeover = `Continue in web chat with ${MODEL_NAME}`;
  const lastReply = session.message('Assistant').last();
  await expect(lastReply).toContainText('Committed as 7c1e2d3');
  await expect(lastReply.getByRole('button', { name: 'Retry', exact: true })).toHaveCount(0);
  await lastReply.getByRole('button', { name: takeover, exact: true }).click();
  await expect(session.fork(2, 2)).toBeVisible({ timeout: 20_000 });
  await expect(session.message('Assistant').last()).toContainText('You said: Leave it for now');

  const firstQuestion = session.message('User').first();
  await firstQuestion.getByRole('button', { name: 'Edit' }).click();
  await firstQuestion.getByRole('textbox', { name: 'Edited message' }).fill('Add a --quiet flag instead');
  await expect(firstQuestion.getByRole('button', { name: 'Send edit' })).toHaveCount(0);
  await firstQuestion.getByRole('button', { name: takeover, exact: true }).click();
  await expect(session.message('Assistant').last()).toContainText('You said: Add a --quiet flag instead', { timeout: 20_000 });
  // Turn 1 of the new branch would have titled it from the web chat's words: it keeps its own.
  await expect.poll(async () => (await query<{ status: string }>(user.api, 'session.get', { id: 'codex-019aa1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b' })).data.status).toBe('idle');
  expect((await query<{ title: string }>(user.api, 'session.get', { id: 'codex-019aa1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b' })).data.title).toBe(CODEX_TITLE);
  await expect(session.title).toHaveText(CODEX_TITLE);

  // The person's own chat keeps plain Retry.
  await sidebar.row('Plan My Garden').click();
  await expect(session.message('Assistant').getByRole('button', { name: 'Retry', exact: true })).toBeVisible();
});
