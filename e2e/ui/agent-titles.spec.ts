import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { BASE_URL, captureViews, createToken, expect, MODEL_NAME, MODEL_URL, query, signInBrowser, test } from '../fixtures';

interface ReceivedRequest {
  body: { model?: string; messages?: { role: string; content: unknown }[] };
}

/** The title requests the loopback model server received that carry this text. */
async function titleRequestsMentioning(needle: string): Promise<ReceivedRequest[]> {
  const response = await fetch(`${MODEL_URL.replace(/\/v1$/, '')}/requests`);
  const { requests } = (await response.json()) as { requests: ReceivedRequest[] };
  return requests.filter((request) => {
    const messages = request.body.messages ?? [];
    const title = messages.some((message) => message.role === 'system' && String(message.content).startsWith('Generate a short, descriptive title'));
    return title && JSON.stringify(messages).includes(needle);
  });
}

async function titleOf(api: Parameters<typeof query>[0], id: string): Promise<string> {
  return (await query<{ title: string }>(api, 'session.get', { id })).data?.title ?? '';
}

test("an agent's prompts go to the title model only once the user turns it on in Settings, which names that model", async ({ page, context, user, settingsPage }) => {
  const { token } = await createToken(user.api, 'agent titles');
  // An agent through the recording proxy with its own key and our token beside it (as Claude Code or Codex would).
  const agent = (session: string) =>
    new OpenAI({ apiKey: 'sk-own', baseURL: `${BASE_URL}/proxy/openai/v1`, defaultHeaders: { 'x-entity-memory-token': token, 'x-entity-memory-session': session }, maxRetries: 0 });
  const marker = randomUUID().slice(0, 8);
  const privatePrompt = `refactor billing ${marker} module quietly`;
  await agent('agent-off').responses.create({ model: 'gpt-test', input: privatePrompt });
  await expect.poll(() => titleOf(user.api, 'agent-off')).toBe(privatePrompt);

  await signInBrowser(context, user.api);
  await settingsPage.goto();
  // Settings says where titles go: the model and its server.
  await expect(settingsPage.titles).toContainText(`Titles go to the title model ${MODEL_NAME} at ${MODEL_URL}`);
  await expect(settingsPage.titleAgentSessions).not.toBeChecked();
  await settingsPage.titles.scrollIntoViewIfNeeded();
  await captureViews(page, 'h31a-settings-titles');
  await settingsPage.titleAgentSessions.check();
  await expect(settingsPage.titles.getByRole('status')).toContainText('Agent sessions are titled by the title model');
  await page.reload();
  await expect(settingsPage.titleAgentSessions).toBeChecked();

  const sharedPrompt = `plan garden ${marker} beds now`;
  await agent('agent-on').responses.create({ model: 'gpt-test', input: sharedPrompt });
  // The loopback model titles with the first four words, capitalised.
  await expect.poll(() => titleOf(user.api, 'agent-on')).toBe(`Plan Garden ${marker[0]!.toUpperCase()}${marker.slice(1)} Beds`);
  expect(await titleRequestsMentioning(sharedPrompt)).toHaveLength(1);
  // The first session's prompt never went to the title model, and its title is still its own first line.
  expect(await titleRequestsMentioning(privatePrompt)).toHaveLength(0);
  expect(await titleOf(user.api, 'agent-off')).toBe(privatePrompt);
});
