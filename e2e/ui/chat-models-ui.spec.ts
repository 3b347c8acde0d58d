import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { captureViews, expect, getSession, MODEL_URL, mutate, query, signInBrowser, test } from '../fixtures';
import { SessionPage } from '../pages/session';

/** Issue 16 item 5: the model of a chat, its system prompt, and a model URL that does not answer. */

interface ReceivedRequest {
  body: { model?: string; messages?: { role: string; content: unknown }[] };
}

async function chatRequestsMentioning(needle: string): Promise<ReceivedRequest[]> {
  const response = await fetch(`${MODEL_URL.replace(/\/v1$/, '')}/requests`);
  const { requests } = (await response.json()) as { requests: ReceivedRequest[] };
  return requests.filter((request) => {
    const messages = request.body.messages ?? [];
    const title = messages.some((message) => message.role === 'system' && String(message.content).startsWith('Generate a short, descriptive title'));
    return !title && JSON.stringify(messages).includes(needle);
  });
}

test('a model picked for a chat reaches the model server as that model id, with the chat\'s system prompt', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  await page.goto('/');
  const model = page.getByRole('combobox', { name: 'Model' });
  await expect(model).toHaveValue('e2e-model');
  await expect(model.getByRole('option')).toHaveText(['e2e-model (default)', 'test-model', 'test-title-model']);
  await page.getByRole('textbox', { name: 'Message' }).fill('first on the default fh-default');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page).toHaveURL(/\/sessions\/[A-Za-z0-9_-]+$/);
  const sessionId = new URL(page.url()).pathname.split('/').pop()!;
  const session = new SessionPage(page);
  await expect(session.message('Assistant')).toContainText('You said: first on the default');
  expect((await chatRequestsMentioning('fh-default')).map((request) => request.body.model)).toEqual(['e2e-model']);

  // This chat from now on: another model and its own system prompt.
  await page.getByRole('combobox', { name: 'Model' }).selectOption('test-model');
  await expect.poll(async () => (await query<{ model: string | null }>(user.api, 'chat.settings', { sessionId })).data.model).toBe('test-model');
  await page.getByRole('button', { name: 'System prompt' }).click();
  const dialog = page.getByRole('dialog', { name: 'System prompt' });
  await dialog.getByRole('textbox', { name: 'System prompt' }).fill('Answer like a ship\'s captain.');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'System prompt (set)' })).toBeVisible();
  await captureViews(page, 'first-hour-chat-model-picked');

  await page.getByRole('textbox', { name: 'Message' }).fill('second on the pick fh-picked');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(session.message('Assistant').last()).toContainText('You said: second on the pick', { timeout: 20_000 });
  const picked = await chatRequestsMentioning('fh-picked');
  expect(picked.map((request) => request.body.model)).toEqual(['test-model']);
  const system = String(picked[0]!.body.messages![0]!.content);
  expect(system).toMatch(/^You are the assistant of Entity Memory/);
  expect(system.endsWith("\n\nAnswer like a ship's captain.")).toBe(true);
  await expect.poll(async () => (await getSession(user.api, sessionId)).status).toBe('idle');

  // Kept after a reload, and the timeline shows the change in the turn it took effect in.
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Model' })).toHaveValue('test-model');
  await page.getByRole('link', { name: 'Timeline' }).click();
  await expect(page.getByRole('article', { name: /^Turn 2/ }).getByText('Model: test-model; system prompt: "Answer like a ship\'s captain."')).toBeVisible();
  await captureViews(page, 'first-hour-timeline-chat-settings');

  // A model the server does not offer is refused with the list, and nothing changes.
  const refused = await mutate(user.api, 'chat.setSettings', { sessionId, model: 'gpt-imaginary' });
  expect(refused.status).toBe(412);
  expect(refused.body.error?.message).toBe('model gpt-imaginary is not offered here (offered: e2e-model, test-model, test-title-model)');
});

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('saving an unreachable model URL says what failed; the server\'s models are offered in a dropdown', async ({ browser, adminApi }) => {
  const deadUrl = `http://127.0.0.1:${await closedPort()}/v1`;
  const context = await browser.newContext();
  await signInBrowser(context, adminApi);
  const page = await context.newPage();
  try {
    await page.goto('/admin');
    const form = page.getByRole('form', { name: 'Model settings' });
    // With no URL of its own, the environment's server answers: its models are in the dropdown.
    const listed = form.getByRole('combobox', { name: 'Models on the server' });
    await expect(listed.getByRole('option', { name: 'test-model', exact: true })).toHaveCount(1);
    await listed.selectOption('test-model');
    await expect(form.getByRole('textbox', { name: 'Model', exact: true })).toHaveValue('test-model');

    await form.getByRole('textbox', { name: 'Server URL (OpenAI-compatible, …/v1)' }).fill(deadUrl);
    await form.getByRole('button', { name: 'Save model' }).click();
    await expect(page.getByText(`Saved, but the model server does not answer: ${deadUrl}/models: the connection was refused (is the server running, on that port?). Chat will fail until it does.`)).toBeVisible();
    await expect(page.getByText(/^Model in use/)).toHaveCount(0);
    await form.scrollIntoViewIfNeeded();
    await captureViews(page, 'first-hour-admin-model-unreachable');

    // The same form on a server that answers: in use, and said so.
    await form.getByRole('textbox', { name: 'Server URL (OpenAI-compatible, …/v1)' }).fill(MODEL_URL);
    await form.getByRole('button', { name: 'Save model' }).click();
    await expect(page.getByText('Model in use: test-model (the server answers)')).toBeVisible();
  } finally {
    // The admin's model wins over the environment for every test after this one: put it back.
    const reset = await mutate(adminApi, 'models.set', { baseUrl: null, model: null, titleModel: null });
    expect(reset.status).toBe(200);
    await context.close();
  }
});
