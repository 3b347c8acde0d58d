import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { captureViews, createToken, e2eScratchDir, expect, MODEL_NAME, MODEL_URL, mutate, query, signInBrowser, test } from '../fixtures';
import { CLAUDE, claudeEnv, runAgent } from '../fixtures/real-agents';
import { SessionPage } from '../pages/session';
import { TimelinePage } from '../pages/timeline';

// Issue 35 item 4: "Replay with…" on a recorded Claude Code turn sends the request the proxy kept
// to a second model: a second upstream at its own path of the loopback model server.
const MODEL_ROOT = MODEL_URL.replace(/\/v1$/, '');
const SECOND = 'second-model';
const REPLAY_MODEL = 'claude-replay-model';

interface ReceivedRequest {
  wire: string;
  path: string;
  headers: Record<string, string>;
  body: { model?: string; tools?: unknown[]; messages?: unknown[] } & Record<string, unknown>;
}

async function upstreamRequests(): Promise<ReceivedRequest[]> {
  return ((await (await fetch(`${MODEL_ROOT}/requests`)).json()) as { requests: ReceivedRequest[] }).requests;
}

const lessModel = ({ model: _model, ...rest }: ReceivedRequest['body']) => rest;

test('Replay with another model: a real Claude Code turn, its request sent to a second model equal but for the model, the answer a sibling branch named after the model', async ({ page, context, user }) => {
  test.setTimeout(240_000);
  expect((await mutate(user.api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-recorded-e2e' })).status).toBe(200);
  expect((await mutate(user.api, 'proxy.setUpstream', { name: SECOND, kind: 'anthropic', baseUrl: `${MODEL_ROOT}/${SECOND}`, key: 'sk-ant-second-e2e' })).status).toBe(200);
  const { token } = await createToken(user.api, 'claude code replay');
  const scratch = mkdtempSync(join(e2eScratchDir(), 'claude-replay-'));
  const [home, work] = [join(scratch, 'home'), join(scratch, 'work')];
  mkdirSync(home);
  mkdirSync(work);
  const uuid = randomUUID();
  const prompt = `Why does the marimba test flake? ${uuid.slice(0, 8)} [[words:6]]`;
  const run = await runAgent(CLAUDE, ['-p', '--session-id', uuid, '--', prompt], claudeEnv(home, token), work).done;
  expect(run.code, run.output).toBe(0);
  const sessionId = `cc-${uuid}`;
  await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id: sessionId })).data?.turnCount ?? 0, { timeout: 20_000 }).toBe(1);
  // The conversation request Claude Code sent (its side calls offer no tools), as the model server received it.
  const recorded = (await upstreamRequests()).filter((request) => request.path.split('?')[0] === '/v1/messages' && (request.body.tools?.length ?? 0) > 0 && JSON.stringify(request.body.messages).includes(uuid.slice(0, 8))).at(-1)!;
  expect(recorded).toBeTruthy();

  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await session.goto(sessionId);
  const reply = session.message('Assistant').last();
  await reply.getByRole('button', { name: 'Replay with…', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Replay with another model' });
  await expect(dialog.getByRole('combobox', { name: 'Send through' })).toHaveValue('anthropic');
  await dialog.getByRole('combobox', { name: 'Send through' }).selectOption(SECOND);
  await dialog.getByRole('textbox', { name: 'Model' }).fill(REPLAY_MODEL);
  await captureViews(page, 'replay-dialog');
  const before = (await upstreamRequests()).length;
  await dialog.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(dialog).toHaveCount(0, { timeout: 20_000 });

  // The answer beside the reply, on the page: its branch named after the model.
  await expect(session.fork(2, 2)).toBeVisible();
  await expect(session.message('Assistant').last().getByText(`Replayed with ${REPLAY_MODEL}`)).toBeVisible();
  await captureViews(page, 'replay-branch');

  // What the second model received: the recorded request, every field equal but the model.
  const sent = (await upstreamRequests()).slice(before).filter((request) => request.path.split('?')[0] === `/${SECOND}/v1/messages`);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.body.model).toBe(REPLAY_MODEL);
  expect(recorded.body.model).not.toBe(REPLAY_MODEL);
  expect(lessModel(sent[0]!.body)).toEqual(lessModel(recorded.body));
  expect(sent[0]!.headers['x-api-key']).toBe('sk-ant-second-e2e');

  const branch = (await query<{ id: string; role: string; siblings: string[]; metadata: Record<string, unknown> }[]>(user.api, 'message.branch', { sessionId })).data;
  expect(branch.map((message) => message.role)).toEqual(['user', 'assistant']);
  expect(branch[1]!.siblings).toHaveLength(2);
  expect(branch[1]!.metadata['replay']).toEqual({ of: branch[1]!.siblings.find((id) => id !== branch[1]!.id), model: REPLAY_MODEL });

  // The branch graph names it too.
  const timeline = new TimelinePage(page);
  await timeline.goto(sessionId);
  await expect(timeline.tip('main')).toBeVisible();
  await expect(timeline.graph().getByRole('link', { name: `Branch ${REPLAY_MODEL} (current)`, exact: true })).toBeVisible();

  // The replayed answer beside the original on the compare page (DESIGN §14 Compare).
  await session.goto(sessionId);
  await session.message('Assistant').last().getByRole('link', { name: 'Compare with the original' }).click();
  await expect(page.getByRole('heading', { name: 'Compare branches', level: 1 })).toBeVisible();
  const original = branch[1]!.siblings.find((id) => id !== branch[1]!.id)!;
  expect(new URL(page.url()).searchParams.get('a')).toBe(original);
  expect(new URL(page.url()).searchParams.get('b')).toBe(branch[1]!.id);
  const pair = page.getByRole('main').getByRole('list', { name: 'Aligned messages' }).getByRole('listitem').first();
  await expect(pair.getByRole('article', { name: 'Branch A: Assistant' })).toBeVisible();
  await expect(pair.getByRole('article', { name: 'Branch B: Assistant' })).toBeVisible();

  // The same reply replayed on the web chat's model server: the agent's request carried over into
  // Chat Completions (its system prompt, its messages, its tools), the answer a third branch.
  await session.goto(sessionId);
  await session.previousBranch(session.fork(2, 2));
  await expect(session.fork(1, 2)).toBeVisible();
  await session.message('Assistant').last().getByRole('button', { name: 'Replay with…', exact: true }).click();
  const chatDialog = page.getByRole('dialog', { name: 'Replay with another model' });
  await chatDialog.getByRole('combobox', { name: 'Send through' }).selectOption({ label: "the chat's model server" });
  // With the chat's models offered as a list, the field is a combobox.
  await expect(chatDialog.getByRole('combobox', { name: 'Model' })).toHaveAttribute('placeholder', `${MODEL_NAME} (the chat's default)`);
  const beforeChat = (await upstreamRequests()).length;
  await chatDialog.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(chatDialog).toHaveCount(0, { timeout: 20_000 });
  await expect(session.fork(3, 3)).toBeVisible();
  await expect(session.message('Assistant').last().getByText(`Replayed with ${MODEL_NAME}`)).toBeVisible();

  const toChat = (await upstreamRequests()).slice(beforeChat).filter((request) => request.path.split('?')[0] === '/v1/chat/completions');
  expect(toChat).toHaveLength(1);
  const chatBody = toChat[0]!.body as { model?: string; messages: { role: string; content: string | null }[]; tools: { function: { name: string } }[] };
  expect(chatBody.model).toBe(MODEL_NAME);
  const systemBlocks = recorded.body['system'] as { text: string }[];
  expect(chatBody.messages[0]).toMatchObject({ role: 'system' });
  expect(chatBody.messages[0]!.content).toContain(systemBlocks.at(-1)!.text);
  expect(chatBody.messages.some((message) => message.role === 'user' && message.content?.includes(prompt))).toBe(true);
  const recordedTools = (recorded.body.tools as { name: string; input_schema?: unknown }[]).filter((tool) => tool.input_schema).map((tool) => tool.name);
  expect(chatBody.tools.map((tool) => tool.function.name)).toEqual(recordedTools);

  const three = (await query<{ id: string; siblings: string[]; metadata: Record<string, unknown> }[]>(user.api, 'message.branch', { sessionId })).data;
  expect(three[1]!.siblings).toHaveLength(3);
  expect(three[1]!.metadata['replay']).toEqual({ of: original, model: MODEL_NAME });
});
