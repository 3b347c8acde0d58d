import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { BASE_URL, captureViews, createToken, e2eDataDir, expect, expectNowhereOnDisk, MODEL_URL, mutate, query, signInBrowser, test } from '../fixtures';

// Issue 31 item 1: "the admin may set an instance-wide key that users may use (a switch per user on
// the Admin page)". The admin sets the key and the user's switch in a real browser; the user's SDK
// call through the recording proxy, our token as its key and no key of its own stored, reaches the
// loopback model upstream with the instance key.
const INSTANCE_KEY = `sk-ant-instance-e2e-${randomUUID().slice(0, 8)}`;
const INSTANCE_FILE = 'auth/instance-provider-keys.json';

interface Received {
  wire: string;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** The Anthropic-wire requests the loopback model upstream received that carry `marker`. */
async function upstreamRequestsWith(marker: string): Promise<Received[]> {
  const response = await fetch(`${MODEL_URL.replace(/\/v1$/, '')}/requests`);
  const { requests } = (await response.json()) as { requests: Received[] };
  return requests.filter((request) => request.wire === 'anthropic' && JSON.stringify(request.body).includes(marker));
}

test('the admin sets an instance Anthropic key and a user\'s switch; that user\'s SDK call through the proxy reaches the upstream with it', async ({ browser, context, page, adminApi, user }) => {
  test.setTimeout(90_000);
  const { token } = await createToken(user.api, 'sdk with the instance key');
  const sdk = new Anthropic({ apiKey: token, baseURL: `${BASE_URL}/proxy/anthropic`, maxRetries: 0 });
  try {
    // Before: no key of the user's own, the switch off by default: refused, as before.
    const refused = await sdk.messages.create({ model: 'claude-test', max_tokens: 20, messages: [{ role: 'user', content: 'before the switch' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);

    await signInBrowser(context, adminApi);
    await page.goto('/admin');
    const section = page.getByRole('region', { name: 'Instance provider keys' });
    const anthropicRow = section.getByRole('listitem', { name: 'Instance Anthropic key' });
    await expect(anthropicRow.getByRole('status', { name: 'Instance Anthropic key status' })).toBeVisible();
    await anthropicRow.getByLabel('Instance Anthropic key', { exact: true }).fill(INSTANCE_KEY);
    await anthropicRow.getByRole('button', { name: 'Save Anthropic key' }).click();
    await expect(anthropicRow.getByRole('status', { name: 'Instance Anthropic key status' })).toHaveText('set');
    await expect(anthropicRow.getByLabel('Instance Anthropic key', { exact: true })).toHaveValue('');

    const userSwitch = section.getByRole('switch', { name: `${user.email} may use the instance key` });
    await expect(userSwitch).not.toBeChecked();
    // The switch shows the server's answer: it turns on once the change is saved, not at the click.
    await userSwitch.click();
    await expect(section.getByRole('status').filter({ hasText: `${user.email} may use the instance keys.` })).toBeVisible();
    await expect(userSwitch).toBeChecked();

    // Never shown back: not on the page after a reload, only "set"; the switch stays on.
    await page.reload();
    await expect(anthropicRow.getByRole('status', { name: 'Instance Anthropic key status' })).toHaveText('set');
    await expect(section.getByRole('switch', { name: `${user.email} may use the instance key` })).toBeChecked();
    expect(await page.content()).not.toContain(INSTANCE_KEY);
    await section.scrollIntoViewIfNeeded();
    await captureViews(page, 'h31-admin-instance-keys');
    const view = await query<{ keys: { anthropic: { set: boolean } }; users: string[] }>(adminApi, 'admin.instanceKeys');
    expect(view.data.keys.anthropic.set).toBe(true);
    expect(view.data.users).toContain(user.id);
    expect(JSON.stringify(view.data)).not.toContain(INSTANCE_KEY);

    // The user's Connect card says that the instance key is used instead of one of their own.
    const userContext = await browser.newContext();
    try {
      await signInBrowser(userContext, user.api);
      const userPage = await userContext.newPage();
      await userPage.goto('/settings');
      const notice = userPage.getByRole('region', { name: 'Connect an agent' }).getByRole('region', { name: 'No Anthropic key stored' });
      await expect(notice).toContainText('the proxy uses the instance\'s Anthropic key');
      await expect(userPage.getByRole('listitem', { name: 'Upstream anthropic' }).getByText('No key stored: the instance key is used')).toBeVisible();
      await notice.scrollIntoViewIfNeeded();
      await captureViews(userPage, 'h31-connect-instance-key');
    } finally {
      await userContext.close();
    }

    // The user's SDK call, our token as its key: answered, and the upstream got the instance key, never our token.
    const marker = `instance-key-${randomUUID()}`;
    const message = await sdk.messages.create({ model: 'claude-test', max_tokens: 20, messages: [{ role: 'user', content: marker }] });
    expect(message.type).toBe('message');
    const [received] = await upstreamRequestsWith(marker);
    expect(received?.headers['x-api-key']).toBe(INSTANCE_KEY);
    expect(JSON.stringify(received?.headers)).not.toContain(token);
    const { data: upstreams } = await query<{ name: string; keySet: boolean; instanceKey: boolean }[]>(user.api, 'proxy.listUpstreams');
    expect(upstreams.find((upstream) => upstream.name === 'anthropic')).toMatchObject({ keySet: false, instanceKey: true });

    // The key is in its one file under data/auth/ and nowhere else: not in the user's folder, a log or a git object.
    await expectNowhereOnDisk([INSTANCE_KEY], { gitRoots: [join(e2eDataDir(), 'users', user.id), join(e2eDataDir(), 'workspaces', user.id)], allowedIn: { [INSTANCE_KEY]: [INSTANCE_FILE] } });

    // The switch off again: refused, as for everyone else.
    await page.goto('/admin');
    await section.getByRole('switch', { name: `${user.email} may use the instance key` }).click();
    await expect(section.getByRole('switch', { name: `${user.email} may use the instance key` })).not.toBeChecked();
    const after = await sdk.messages.create({ model: 'claude-test', max_tokens: 20, messages: [{ role: 'user', content: 'after the switch' }] }).catch((error: unknown) => error);
    expect(after).toBeInstanceOf(Anthropic.AuthenticationError);
  } finally {
    // The instance key is shared by the whole run: removed, so no other test's user meets it.
    await mutate(adminApi, 'admin.setInstanceKeyUser', { userId: user.id, allowed: false });
    await mutate(adminApi, 'admin.setInstanceKey', { kind: 'anthropic', key: '' });
  }
});
