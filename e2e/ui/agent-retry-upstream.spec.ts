import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { BASE_URL, MODEL_URL, createToken, expect, mutate, query, signInBrowser, test } from '../fixtures';
import { SessionPage } from '../pages/session';

// Issue 28 item 6: Retry on a recorded agent's reply says what answers and really asks it: the
// request the proxy kept, sent again through the user's upstream with their stored key (the
// loopback model server is the upstream here), the answer recorded beside the reply.
const STORED_KEY = 'sk-ant-stored-for-retry-e2e';
const AGENT_MODEL = 'claude-opus-5-5';
const SYSTEM = 'You are Claude Code, working in the repository.';

interface ReceivedRequest {
  wire: string;
  headers: Record<string, string>;
  body: { model?: string; system?: unknown; messages?: unknown[] };
}

async function upstreamRequests(): Promise<ReceivedRequest[]> {
  return ((await (await fetch(`${MODEL_URL.replace(/\/v1$/, '')}/requests`)).json()) as { requests: ReceivedRequest[] }).requests;
}

test('Retry on a proxied Claude Code reply: "Retry with <model> through your anthropic upstream", the kept request sent again with the stored key, a sibling reply, the title kept', async ({ page, context, user }) => {
  test.setTimeout(90_000);
  expect((await mutate(user.api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: STORED_KEY })).status).toBe(200);
  const { token } = await createToken(user.api, 'retry through the upstream');
  const claudeSession = randomUUID();
  // Claude Code's shape: our token as its key (the stored key goes upstream), its session header, tools and a system prompt.
  const anthropic = new Anthropic({ apiKey: token, baseURL: `${BASE_URL}/proxy/anthropic`, defaultHeaders: { 'x-claude-code-session-id': claudeSession }, maxRetries: 0 });
  const prompt = 'Why does the marimba test flake?';
  await anthropic.messages.create({
    model: AGENT_MODEL,
    max_tokens: 100,
    system: SYSTEM,
    tools: [{ name: 'Bash', description: 'run a command', input_schema: { type: 'object', properties: {} } }],
    messages: [{ role: 'user', content: prompt }],
  });
  const sessionId = `cc-${claudeSession}`;
  await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id: sessionId })).data?.turnCount ?? 0).toBe(1);
  const title = (await query<{ title: string }>(user.api, 'session.get', { id: sessionId })).data.title;
  expect(title).toBeTruthy();

  await signInBrowser(context, user.api);
  await page.goto(`/sessions/${sessionId}`);
  const session = new SessionPage(page);
  const reply = session.message('Assistant').last();
  const label = `Retry with ${AGENT_MODEL} through your anthropic upstream`;
  await expect(reply.getByRole('button', { name: label, exact: true })).toBeVisible();
  await expect(reply.getByRole('button', { name: /^Continue in web chat/ })).toHaveCount(0);

  const before = (await upstreamRequests()).length;
  await reply.getByRole('button', { name: label, exact: true }).click();
  // The new reply beside the first, shown live; the page's title is the agent's still.
  await expect(session.fork(2, 2)).toBeVisible({ timeout: 20_000 });
  await expect(session.title).toHaveText(title);

  // What went upstream: the same request (system prompt, messages, model) with the stored key, never our token.
  const sent = (await upstreamRequests()).slice(before).filter((request) => request.wire === 'anthropic');
  expect(sent).toHaveLength(1);
  expect(sent[0]!.headers['x-api-key']).toBe(STORED_KEY);
  expect(JSON.stringify(sent[0]!.headers)).not.toContain(token);
  expect(sent[0]!.body).toMatchObject({ model: AGENT_MODEL, system: SYSTEM, messages: [{ role: 'user', content: prompt }] });

  const branch = await query<{ role: string; parentId: string | null; siblings: string[] }[]>(user.api, 'message.branch', { sessionId });
  expect(branch.data.map((message) => message.role)).toEqual(['user', 'assistant']);
  expect(branch.data[1]!.siblings).toHaveLength(2);
  const after = (await query<{ title: string; agentId: string; status: string }>(user.api, 'session.get', { id: sessionId })).data;
  expect(after).toMatchObject({ title, agentId: 'claude-code', status: 'idle' });
});
