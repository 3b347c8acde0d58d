import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { BASE_URL, captureViews, createToken, createUser, e2eDataDir, e2eScratchDir, expect, expectNowhereOnDisk, mutate, query, signInBrowser, test, type TestUser } from '../fixtures';
import { CLAUDE, CODEX, claudeEnv, runAgent, writeCodexProxyConfig } from '../fixtures/real-agents';

// What lib/redact recognises as an Anthropic key (the same shape as its own tests use).
const PLANTED_KEY = `sk-ant-api03-${'Pl4nt_'.repeat(15)}e2eAA`;

const STORED_KEY = 'sk-ant-stored-by-e2e';
/** where a user's provider keys typed in Settings are kept (0600, in their own folder), the one file they may be in */
const upstreamsFile = (userId: string) => `users/${userId}/proxy-upstreams.json`;

/** Where a user's requests write git objects: their sessions and their project folders. */
function userFolders(userId: string): string[] {
  return [join(e2eDataDir(), 'users', userId), join(e2eDataDir(), 'workspaces', userId)];
}

async function storeAnthropicKey(user: TestUser): Promise<void> {
  const set = await mutate(user.api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: STORED_KEY });
  expect(set.status).toBe(200);
}

test('Settings → Connect an agent: tabs with the lines to paste, a token made on the spot, Copy, upstream keys shown only as set', async ({ context, page, user, connectSection: connect }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  await signInBrowser(context, user.api);
  await connect.goto();
  await expect(connect.heading).toBeVisible();
  for (const name of ['Claude Code', 'Codex', 'OpenAI SDK', 'Anthropic SDK'] as const) await expect(connect.tab(name)).toBeVisible();
  const claudeLines = connect.lines('Claude Code');
  await expect(claudeLines).toContainText(`ANTHROPIC_BASE_URL=${BASE_URL}/proxy/anthropic`);
  await expect(claudeLines).toContainText('<your Entity Memory token>');
  await connect.makeTokenButton.click();
  await expect(claudeLines).toContainText(/ANTHROPIC_API_KEY=em_[A-Za-z0-9_-]+/);
  const token = /ANTHROPIC_API_KEY=(em_[A-Za-z0-9_-]+)/.exec((await claudeLines.textContent()) ?? '')![1]!;
  const tokens = await query<{ name: string }[]>(user.api, 'token.list');
  expect(tokens.data.map((entry) => entry.name)).toContain('Claude Code (connect an agent)');

  await connect.tab('Codex').click();
  const codexLines = connect.lines('Codex');
  await expect(codexLines).toContainText(`base_url = "${BASE_URL}/proxy/openai/v1"`);
  await expect(codexLines).toContainText('wire_api = "responses"');
  await expect(codexLines).toContainText(token);
  await connect.copyButton.click();
  await expect(page.getByText('Copied the lines for Codex')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`export ENTITY_MEMORY_TOKEN=${token}`);
  await expect(connect.noExchangeYet('Codex')).toBeVisible();

  const anthropic = connect.upstream('anthropic');
  await expect(anthropic.getByText('No key stored')).toBeVisible();
  await connect.saveUpstreamKey('anthropic', 'sk-ant-typed-in-settings');
  await expect(anthropic.getByText('Key set')).toBeVisible();
  await page.reload();
  await expect(anthropic.getByText('Key set')).toBeVisible();
  expect(await page.content()).not.toContain('sk-ant-typed-in-settings');
  expect(readFileSync(join(e2eDataDir(), upstreamsFile(user.id)), 'utf8')).toContain('sk-ant-typed-in-settings');
  expect(statSync(join(e2eDataDir(), upstreamsFile(user.id))).mode & 0o777).toBe(0o600);
  const list = await query<{ name: string; keySet: boolean }[]>(user.api, 'proxy.listUpstreams');
  expect(JSON.stringify(list.body)).not.toContain('sk-ant-typed');

  // SSRF: a user's upstream may not point inside the server's network; the form says why.
  await connect.addUpstream({ name: 'local', baseUrl: 'http://127.0.0.1:9/v1' });
  await expect(page.getByText(/Upstream refused: 127\.0\.0\.1 is a loopback, private or link-local address/)).toBeVisible();
  await expect(connect.upstream('local')).toHaveCount(0);
  const metadata = await mutate(user.api, 'proxy.setUpstream', { name: 'meta', kind: 'openai', baseUrl: 'http://169.254.169.254/latest' });
  expect(metadata.status).toBe(400);
  expect(JSON.stringify(metadata.body)).toContain('OPENPROGRAM_PROXY_ALLOW_PRIVATE=1');
  const names = await query<{ name: string }[]>(user.api, 'proxy.listUpstreams');
  expect(names.data.map((upstream) => upstream.name)).toEqual(['anthropic', 'openai']);

  // An upstream added in the form (a public address) and deleted with its button: gone from the
  // list, after a reload too, and its key gone from the file.
  await connect.addUpstream({ name: 'work', baseUrl: 'https://1.1.1.1/v1', key: 'sk-typed-for-work-upstream' });
  const work = connect.upstream('work');
  await expect(work.getByText('Key set')).toBeVisible();
  expect(readFileSync(join(e2eDataDir(), upstreamsFile(user.id)), 'utf8')).toContain('sk-typed-for-work-upstream');
  await connect.deleteUpstream('work');
  await expect(work).toHaveCount(0);
  await page.reload();
  await expect(anthropic).toBeVisible();
  await expect(work).toHaveCount(0);
  expect((await query<{ name: string }[]>(user.api, 'proxy.listUpstreams')).data.map((upstream) => upstream.name)).toEqual(['anthropic', 'openai']);
  // the deleted upstream's key is nowhere; the stored one only in its 0600 file
  await expectNowhereOnDisk(['sk-typed-for-work-upstream', 'sk-ant-typed-in-settings'], { gitRoots: userFolders(user.id), allowedIn: { 'sk-ant-typed-in-settings': [upstreamsFile(user.id)] } });
  await connect.section.scrollIntoViewIfNeeded();
  await captureViews(page, 'proxy-connect');
});

test('Claude Code through the proxy: seen live in the sidebar while it runs, one session with the Write call, its result and the answer; --resume twice continues it', async ({ context, page, user, sidebar, sessionPage }) => {
  test.setTimeout(210_000);
  await storeAnthropicKey(user);
  const { token } = await createToken(user.api, 'claude code');
  const scratch = mkdtempSync(join(e2eScratchDir(), 'claude-'));
  const home = join(scratch, 'home');
  const work = join(scratch, 'work');
  mkdirSync(home);
  mkdirSync(work);
  await signInBrowser(context, user.api);
  await page.goto('/');
  const sessionId = randomUUID();
  const target = join(work, 'hello.txt');
  // slow pieces, so the agent is still running when its first exchange is recorded
  const prompt = `write the greeting [[delay:150]] [[tool:Write {"file_path":"${target}","content":"hello from claude"}]] key ${PLANTED_KEY}`;
  const args = ['-p', '--session-id', sessionId, '--permission-mode', 'acceptEdits', '--allowedTools', 'Write', '--', prompt];
  const agent = runAgent(CLAUDE, args, claudeEnv(home, token), work);
  const row = sidebar.rowById(`cc-${sessionId}`);
  await expect(row).toBeVisible({ timeout: 60_000 });
  const seenWhileRunning = !agent.exited();
  const run = await agent.done;
  expect(run.code, run.output).toBe(0);
  expect(seenWhileRunning).toBe(true);
  expect(readFileSync(target, 'utf8')).toBe('hello from claude');
  await expect(row.getByText('· Claude Code')).toBeVisible();

  const id = `cc-${sessionId}`;
  const branch = await query<{ role: string; content: string; metadata: Record<string, unknown>; toolCalls: { name: string; content: string }[] }[]>(user.api, 'message.branch', { sessionId: id });
  expect(branch.status).toBe(200);
  expect(branch.data.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant']);
  expect(branch.data[1]!.toolCalls.map((tool) => tool.name)).toEqual(['Write']);
  expect(branch.data[1]!.toolCalls[0]!.content).toContain('hello.txt');
  expect(branch.data[2]!.content).toContain('Tool result:');
  const session = await query<{ source: string; agentId: string; turnCount: number; redacted: number }>(user.api, 'session.get', { id });
  expect(session.data).toMatchObject({ source: 'proxy:claude-code', agentId: 'claude-code', turnCount: 2 });
  expect(session.data.redacted).toBeGreaterThan(0);

  // `claude -p --resume` twice: each run is the same session (Claude Code reports the same id,
  // one cc- session here) and extends its branch by a turn, never a fork.
  const resumes = ['and one more thing', 'and a last thing'];
  for (const [index, next] of resumes.entries()) {
    const resumed = await runAgent(CLAUDE, ['-p', '--resume', sessionId, '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Write', '--', next], claudeEnv(home, token), work).done;
    expect(resumed.code, resumed.output).toBe(0);
    expect(/"session_id"\s*:\s*"([^"]+)"/.exec(resumed.output)?.[1], resumed.output).toBe(sessionId);
    await expect
      .poll(async () => (await query<{ content: string }[]>(user.api, 'message.branch', { sessionId: id })).data.map((message) => message.content).slice(-2))
      .toEqual([next, `You said: ${next}`]);
    const after = await query<{ content: string; siblings: string[] }[]>(user.api, 'message.branch', { sessionId: id });
    expect(after.data).toHaveLength(5 + 2 * index); // extends the same branch: no fork
    expect(after.data.every((message) => message.siblings.length === 1)).toBe(true);
  }
  expect((await query<{ turnCount: number }>(user.api, 'session.get', { id })).data.turnCount).toBe(2 + resumes.length);
  // The planted key reached the agent and the model, our token and the stored provider key went
  // over the wire: none is anywhere under the data directory (git objects read through git, every
  // file's bytes, logs included), except the provider key in its own file.
  expect(readFileSync(join(e2eDataDir(), upstreamsFile(user.id)), 'utf8')).toContain(STORED_KEY);
  await expectNowhereOnDisk([PLANTED_KEY, token, STORED_KEY], { gitRoots: userFolders(user.id), allowedIn: { [STORED_KEY]: [upstreamsFile(user.id)] } });
  const rows = await query<{ rows: { id: string }[] }>(user.api, 'session.list', { source: 'proxy:claude-code' });
  expect(rows.data.rows.map((entry) => entry.id)).toEqual([id]);
  await sessionPage.goto(id);
  await expect(sessionPage.message('Assistant').last()).toContainText(`You said: ${resumes.at(-1)!}`);
  await expect(page.getByText('[REDACTED:', { exact: false }).first()).toBeVisible();
  await captureViews(page, 'proxy-claude-session');
});

test('Codex exec through the proxy is a session of its own, marked Codex', async ({ context, page, user, sidebar }) => {
  test.setTimeout(120_000);
  const { token } = await createToken(user.api, 'codex');
  const scratch = mkdtempSync(join(e2eScratchDir(), 'codex-'));
  const home = join(scratch, 'home');
  const work = join(scratch, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeCodexProxyConfig(home, token);
  // The upstream ends its stream 100 ms after response.completed: Codex may hang up first, and the turn is still complete.
  const run = await runAgent(CODEX, ['exec', '--skip-git-repo-check', 'hello from codex [[linger:100]]'], { HOME: home, CODEX_HOME: home, ENTITY_MEMORY_TOKEN: 'sk-own-openai-key' }, work).done;
  expect(run.code, run.output).toBe(0);
  expect(run.output).toContain('You said: hello from codex [[linger:100]]');
  await expect.poll(async () => (await query<{ rows: unknown[] }>(user.api, 'session.list', { source: 'proxy:codex' })).data.rows.length).toBe(1);
  const [row] = (await query<{ rows: { id: string; title: string; preview: string }[] }>(user.api, 'session.list', { source: 'proxy:codex' })).data.rows;
  expect(row!.id).toMatch(/^codex-[0-9a-f-]{36}$/);
  const branch = await query<{ role: string; content: string; metadata: Record<string, unknown> }[]>(user.api, 'message.branch', { sessionId: row!.id });
  expect(branch.data.map((message) => [message.role, message.content])).toEqual([
    ['user', 'hello from codex [[linger:100]]'],
    ['assistant', 'You said: hello from codex [[linger:100]]'],
  ]);
  await expect.poll(async () => (await query<{ status: string }>(user.api, 'session.get', { id: row!.id })).data?.status).toBe('idle');
  expect(String(branch.data[0]!.metadata['system_reminders'])).toContain('<environment_context>');
  // the agent's own key passed through and is stored nowhere
  await expectNowhereOnDisk(['sk-own-openai-key'], { gitRoots: userFolders(user.id) });
  await signInBrowser(context, user.api);
  await page.goto('/');
  await expect(sidebar.rowById(row!.id).getByText('· Codex')).toBeVisible();
  await captureViews(page, 'proxy-sidebar');
});

test('the official SDKs through the proxy; another user\'s token records nothing into your sessions; a dropped client is still recorded', async ({ adminApi, user }) => {
  const other = await createUser(adminApi, { label: 'other' });
  const mine = await createToken(user.api, 'sdk');
  const theirs = await createToken(other.api, 'sdk');
  const anthropic = new Anthropic({ apiKey: 'sk-ant-own', baseURL: `${BASE_URL}/proxy/anthropic`, defaultHeaders: { 'x-entity-memory-token': mine.token, 'x-entity-memory-session': 'sdk-session' }, maxRetries: 0 });
  const message = await anthropic.messages.stream({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: 'hi from the anthropic sdk [[thinking:hmm]]' }] }).finalMessage();
  expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
  const openai = new OpenAI({ apiKey: 'sk-own', baseURL: `${BASE_URL}/proxy/openai/v1`, defaultHeaders: { 'x-entity-memory-token': mine.token }, maxRetries: 0 });
  const response = await openai.responses.create({ model: 'gpt-test', input: 'hi from the openai sdk' });
  expect(response.output_text).toBe('You said: hi from the openai sdk');
  await expect.poll(async () => (await query<{ rows: unknown[] }>(user.api, 'session.list', { source: 'proxy:openai' })).data.rows.length).toBe(1);
  await expect.poll(async () => (await query<{ messages: unknown[] }>(user.api, 'message.nodes', { sessionId: 'sdk-session' })).data?.messages.length ?? 0).toBe(2);

  // the other user names my session: it lands in theirs, mine is untouched
  const intruder = new OpenAI({ apiKey: 'sk-own', baseURL: `${BASE_URL}/proxy/openai/v1`, defaultHeaders: { 'x-entity-memory-token': theirs.token, 'x-entity-memory-session': 'sdk-session' }, maxRetries: 0 });
  await intruder.responses.create({ model: 'gpt-test', input: 'intruding' });
  await expect.poll(async () => (await query<{ messages: unknown[] }>(other.api, 'message.nodes', { sessionId: 'sdk-session' })).data?.messages.length ?? 0).toBe(2);
  expect((await query<{ messages: { content: string }[] }>(user.api, 'message.nodes', { sessionId: 'sdk-session' })).data.messages.map((node) => node.content)).not.toContain('intruding');
  // an unknown token: 401 in OpenAI's shape, nothing recorded anywhere
  const unknown = await new OpenAI({ apiKey: 'em_unknown', baseURL: `${BASE_URL}/proxy/openai/v1`, maxRetries: 0 }).responses.create({ model: 'm', input: 'x' }).catch((error: unknown) => error);
  expect(unknown).toBeInstanceOf(OpenAI.AuthenticationError);

  // a client that goes away in the middle of a stream
  const controller = new AbortController();
  const stream = await openai.responses.create({ model: 'gpt-test', input: 'a long one [[delay:50]] [[words:60]]', stream: true }, { signal: controller.signal, headers: { 'x-entity-memory-session': 'dropped-client' } });
  let seen = 0;
  try {
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta' && ++seen === 3) controller.abort();
    }
  } catch {
    // the abort ends the loop
  }
  await expect.poll(async () => (await query<{ status: string }>(user.api, 'session.get', { id: 'dropped-client' })).data?.status).toBe('cancelled');
  const nodes = (await query<{ messages: { role: string; content: string; metadata: { proxy?: { outcome: string } } }[] }>(user.api, 'message.nodes', { sessionId: 'dropped-client' })).data.messages;
  expect(nodes.map((node) => node.role)).toEqual(['user', 'assistant']);
  expect(nodes[1]!.metadata.proxy?.outcome).toBe('client_gone');
  // what came before the client went: a beginning of the answer, not all of it
  const whole = `You said: a long one [[delay:50]] [[words:60]] ${Array.from({ length: 60 }, (_, index) => `word${index + 1}`).join(' ')}`;
  expect(nodes[1]!.content).toMatch(/^You said: /);
  expect(whole.startsWith(nodes[1]!.content)).toBe(true);
  expect(nodes[1]!.content.length).toBeLessThan(whole.length);
});

test('a text document sent as base64 through the proxy is an attachment with its secret redacted, whatever its size; the key is nowhere on disk', async ({ user }) => {
  const mine = await createToken(user.api, 'documents');
  const anthropic = new Anthropic({ apiKey: 'sk-ant-own', baseURL: `${BASE_URL}/proxy/anthropic`, defaultHeaders: { 'x-entity-memory-token': mine.token, 'x-entity-memory-session': 'documents' }, maxRetries: 0 });
  const small = `notes\nthe key is ${PLANTED_KEY}\n`;
  const large = `${'filler line of a long document\n'.repeat(12_000)}and again ${PLANTED_KEY}\n`;
  // The SDK types base64 documents as PDF only; the API, and the proxy, take text/plain too.
  const document = (text: string) => ({ type: 'document', source: { type: 'base64', media_type: 'text/plain', data: Buffer.from(text).toString('base64') } }) as unknown as Anthropic.DocumentBlockParam;
  await anthropic.messages.create({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: [document(small), document(large), { type: 'text', text: 'summarise these' }] }] });
  const user1 = async () => (await query<{ messages: { role: string; metadata: { attachments?: { id: string }[]; media?: unknown[] } }[] }>(user.api, 'message.nodes', { sessionId: 'documents' })).data?.messages.find((node) => node.role === 'user');
  await expect.poll(async () => (await user1())?.metadata.attachments?.length ?? 0).toBe(2);
  const stored = (await user1())!;
  expect(stored.metadata.media ?? []).toEqual([]);
  const texts = await Promise.all(stored.metadata.attachments!.map(async ({ id }) => (await user.api.get(`/api/attachments/documents/${encodeURIComponent(id)}`)).text()));
  expect(texts).toEqual([small.replace(PLANTED_KEY, '[REDACTED:anthropic]'), large.replace(PLANTED_KEY, '[REDACTED:anthropic]')]);
  expect((await query<{ redacted: number }>(user.api, 'session.get', { id: 'documents' })).data.redacted).toBeGreaterThanOrEqual(2);
  await expectNowhereOnDisk([PLANTED_KEY, Buffer.from(small).toString('base64')]);
});

test('a client that hangs up once response.completed arrived, while the upstream lingers, leaves a complete turn, not a cancelled one', async ({ user }) => {
  const mine = await createToken(user.api, 'hang-up');
  const openai = new OpenAI({ apiKey: 'sk-own', baseURL: `${BASE_URL}/proxy/openai/v1`, defaultHeaders: { 'x-entity-memory-token': mine.token, 'x-entity-memory-session': 'hang-up' }, maxRetries: 0 });
  const controller = new AbortController();
  const stream = await openai.responses.create({ model: 'gpt-test', input: 'all there [[linger:5000]]', stream: true }, { signal: controller.signal });
  const seen: string[] = [];
  try {
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === 'response.completed') controller.abort();
    }
  } catch {
    // the abort ends the loop, long before the upstream's stream would end
  }
  expect(seen.at(-1)).toBe('response.completed');
  await expect.poll(async () => (await query<{ messages: unknown[] }>(user.api, 'message.nodes', { sessionId: 'hang-up' })).data?.messages.length ?? 0).toBe(2);
  expect((await query<{ status: string }>(user.api, 'session.get', { id: 'hang-up' })).data.status).toBe('idle');
  const nodes = (await query<{ messages: { content: string; metadata: { proxy?: { outcome: string }; error?: string } }[] }>(user.api, 'message.nodes', { sessionId: 'hang-up' })).data.messages;
  expect(nodes[1]!.content).toBe('You said: all there [[linger:5000]]');
  expect(nodes[1]!.metadata.proxy?.outcome).toBe('complete');
  expect(nodes[1]!.metadata.error).toBeUndefined();
});
