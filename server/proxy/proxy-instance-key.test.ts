import { describe, expect, it } from 'vitest';
import { anthropicFor, dataDir, model, nextRecording, openaiFor, origin, runtime, users, useProxyHarness } from './testing/proxy-harness';
import OpenAI from 'openai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

useProxyHarness();

describe('the instance key (issue 31 item 1): the admin\'s key for users switched on without a key of their own', () => {
  const INSTANCE_ANTHROPIC = 'sk-ant-instance-key-unit';
  const INSTANCE_OPENAI = 'sk-openai-instance-key-unit';
  const OWN = 'sk-ant-own-key-of-c';

  /** Every file under the user's folder, as text: the instance key is never written there. */
  function userFolderText(userId: string): string {
    const dir = join(dataDir, 'users', userId);
    let text = '';
    const walk = (path: string) => {
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        const full = join(path, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) text += readFileSync(full, 'latin1');
      }
    };
    try {
      walk(dir);
    } catch {
      // no folder yet
    }
    return text;
  }

  it('is used only with the switch on, for the built-in upstream at the instance URL; the user\'s own key wins; never in the user\'s folder or a response', async () => {
    const auth = runtime.getAuthStore();
    const made = await auth.users.create({ email: 'c@proxy.test', password: 'password-123456' });
    const c = { id: made.id, token: (await auth.tokens.create(made.id, { name: 'agent' })).token };
    users.push(c);
    const instance = runtime.getInstanceKeys();
    instance.setKey('anthropic', INSTANCE_ANTHROPIC);
    try {
      // Switch off (the default): the existing refusal, nothing forwarded.
      const before = model.requests.length;
      const off = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.token }, body: '{}' });
      expect(off.status).toBe(401);
      expect(off.headers.get('x-should-retry')).toBe('false');
      expect(await off.text()).toContain('No Anthropic key is stored');
      expect(model.requests.length).toBe(before);

      // Switch on: the SDK call reaches the upstream with the instance key, and the answer never shows it.
      instance.setAllowed(c.id, true);
      const waiting = nextRecording(c.id);
      const raw = await fetch(`${origin}/proxy/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': c.token, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-test', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(raw.status).toBe(200);
      const answered = `${JSON.stringify([...raw.headers])}${await raw.text()}`;
      expect(model.requests.at(-1)!.headers['x-api-key']).toBe(INSTANCE_ANTHROPIC);
      expect(JSON.stringify(model.requests.at(-1)!.headers)).not.toContain(c.token);
      expect(answered).not.toContain(INSTANCE_ANTHROPIC);
      await waiting;
      const sdkWaiting = nextRecording(c.id);
      const message = await anthropicFor(c.token).messages.create({ model: 'claude-test', max_tokens: 20, messages: [{ role: 'user', content: 'again' }] });
      expect(message.type).toBe('message');
      expect(model.requests.at(-1)!.headers['x-api-key']).toBe(INSTANCE_ANTHROPIC);
      await sdkWaiting;

      // No instance key of that kind: still refused, even with the switch on.
      const noOpenai = await openaiFor(c.token).responses.create({ model: 'm', input: 'hi' }).catch((error: unknown) => error);
      expect(noOpenai).toBeInstanceOf(OpenAI.AuthenticationError);
      instance.setKey('openai', INSTANCE_OPENAI);
      const openaiWaiting = nextRecording(c.id);
      await openaiFor(c.token).responses.create({ model: 'm', input: 'hi' });
      expect(model.requests.at(-1)!.headers['authorization']).toBe(`Bearer ${INSTANCE_OPENAI}`);
      await openaiWaiting;

      // The user's own built-in upstream at another URL, without a key: the instance key never goes to a URL a user typed.
      runtime.getProxyUpstreams().set(c.id, { name: 'anthropic', kind: 'anthropic', baseUrl: model.root.replace('127.0.0.1', 'localhost') });
      const elsewhere = model.requests.length;
      const typed = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.token }, body: '{}' });
      expect(typed.status).toBe(401);
      expect(model.requests.length).toBe(elsewhere);
      runtime.getProxyUpstreams().delete(c.id, 'anthropic');

      // The user's own key always wins.
      runtime.getProxyUpstreams().set(c.id, { name: 'anthropic', kind: 'anthropic', key: OWN });
      const ownWaiting = nextRecording(c.id);
      await anthropicFor(c.token).messages.create({ model: 'claude-test', max_tokens: 20, messages: [{ role: 'user', content: 'mine' }] });
      expect(model.requests.at(-1)!.headers['x-api-key']).toBe(OWN);
      await ownWaiting;

      // Switched off again: refused once more (with the own key removed).
      runtime.getProxyUpstreams().set(c.id, { name: 'anthropic', kind: 'anthropic', key: '' });
      instance.setAllowed(c.id, false);
      const again = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.token }, body: '{}' });
      expect(again.status).toBe(401);

      const folder = userFolderText(c.id);
      expect(folder).not.toContain(INSTANCE_ANTHROPIC);
      expect(folder).not.toContain(INSTANCE_OPENAI);
      const file = join(dataDir, 'auth', 'instance-provider-keys.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      instance.setAllowed(c.id, false);
      instance.setKey('anthropic', '');
      instance.setKey('openai', '');
    }
  });
});
