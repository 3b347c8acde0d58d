import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, createToken, e2eDataDir, expect, freshDataDir, MODEL_NAME, MODEL_URL, mutate, PORT, query, startServer, test, type SessionRow } from '../fixtures';
import { modelRequests, send, turnEnded, until } from './chat-helpers';

interface Status {
  configured: boolean;
  source: string | null;
  model: string | null;
  titleModel: string | null;
  reason: string | null;
}

const CLEAR = { baseUrl: null, apiKey: null, model: null, titleModel: null, detectLocal: false };

test('the admin sets the model: used by the next turn, the key stored 0600 and never shown; cleared, the environment\'s again', async ({ adminApi, user }) => {
  try {
    expect((await query<Status>(user.api, 'chat.modelStatus')).data).toMatchObject({ configured: true, source: 'env', model: MODEL_NAME, reason: null });
    const set = await mutate<{ settings: Record<string, unknown>; status: Status }>(adminApi, 'models.set', { baseUrl: `${MODEL_URL}/`, apiKey: 'sk-secret-e2e', model: 'admin-model', titleModel: 'admin-title-model' });
    expect(set.status).toBe(200);
    expect(set.data.settings).toEqual({ baseUrl: MODEL_URL, model: 'admin-model', titleModel: 'admin-title-model', detectLocal: false, apiKeySet: true });
    expect(JSON.stringify(set.body)).not.toContain('sk-secret-e2e');
    expect(JSON.stringify((await query(adminApi, 'models.get')).body)).not.toContain('sk-secret-e2e');
    const file = join(e2eDataDir(), 'auth', 'models.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('sk-secret-e2e');
    expect((await query<Status>(user.api, 'chat.modelStatus')).data).toMatchObject({ source: 'admin', model: 'admin-model', titleModel: 'admin-title-model' });

    const { sessionId } = await send(user.api, { content: 'which model answers this one' });
    await turnEnded(user.api, sessionId);
    const requests = await until(async () => {
      const found = await modelRequests('which model answers this one');
      return found.length >= 2 ? found : null;
    }, 'chat and title requests');
    expect(requests.map((request) => request.body.model).sort()).toEqual(['admin-model', 'admin-title-model']);

    // Only the admin sets endpoints: not another user, not with a token.
    expect((await mutate(user.api, 'models.set', { model: 'mine' })).status).toBe(403);
    const { token } = await createToken(adminApi, 'models');
    expect((await mutate(adminApi, 'models.set', { model: 'mine' }, bearer(token))).status).toBe(403);
    expect((await mutate(adminApi, 'models.set', { baseUrl: 'file:///etc/passwd' })).status).toBe(400);

    // Half a setting: no model, and chat says exactly why, writing nothing.
    await mutate(adminApi, 'models.set', { baseUrl: null });
    const half = (await query<Status>(user.api, 'chat.modelStatus')).data;
    expect(half).toEqual({ configured: false, source: null, baseUrl: null, model: null, titleModel: null, reason: 'the admin set a model name but no server URL' });
    const refused = await mutate(user.api, 'chat.send', { content: 'no model now' });
    expect(refused.status).toBe(412);
    expect(refused.body.error?.message).toBe('chat needs a model: the admin set a model name but no server URL');
    expect((await query<{ rows: SessionRow[] }>(user.api, 'session.list', { q: 'no model now' })).data.rows).toEqual([]);
  } finally {
    await mutate(adminApi, 'models.set', CLEAR);
  }
  expect((await query<Status>(user.api, 'chat.modelStatus')).data).toMatchObject({ source: 'env', model: MODEL_NAME });
});

test('a server restart mid-turn ends the turn failed, keeping the user message', async () => {
  test.setTimeout(120_000);
  const dataDir = freshDataDir();
  const env = { OPENPROGRAM_LLM_BASE_URL: MODEL_URL, OPENPROGRAM_LLM_MODEL: MODEL_NAME, OPENPROGRAM_ADMIN_EMAIL: 'owner@e2e.test', OPENPROGRAM_ADMIN_PASSWORD: 'owner-password-e2e' };
  const port = PORT + 11;
  let server = startServer({ port, dataDir, env });
  try {
    await server.waitForOutput(/Ready on/);
    // The CLI's token: written anew at every start.
    const cli = () => bearer(readFileSync(join(dataDir, 'auth', 'cli-token'), 'utf8').trim());
    const call = async (path: string, input: unknown, method: 'GET' | 'POST' = 'POST') => {
      const response =
        method === 'POST'
          ? await fetch(`${server.url}/api/trpc/${path}`, { method, headers: { ...cli(), 'content-type': 'application/json' }, body: JSON.stringify(input) })
          : await fetch(`${server.url}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: cli() });
      return (await response.json()) as { result?: { data: Record<string, unknown> } };
    };
    const sent = (await call('chat.send', { content: 'interrupted by a restart [[delay:100]] [[words:200]]' })).result!.data as { sessionId: string; userMessageId: string };
    await until(async () => (await call('session.get', { id: sent.sessionId }, 'GET')).result?.data['status'] === 'running', 'running');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.stop('SIGKILL');

    server = startServer({ port, dataDir, env });
    await server.waitForOutput(/Ready on/);
    const session = (await call('session.get', { id: sent.sessionId }, 'GET')).result!.data;
    expect(session).toMatchObject({ status: 'failed', turnCount: 1, preview: 'interrupted by a restart [[delay:100]] [[words:200]]' });
    const branch = (await call('message.branch', { sessionId: sent.sessionId }, 'GET')).result!.data as unknown as { id: string }[];
    expect(branch.map((message) => message.id)).toEqual([sent.userMessageId]);
  } finally {
    await server.stop();
  }
});
