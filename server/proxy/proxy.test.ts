import { describe, expect, it } from 'vitest';
import { anthropicFor, dataDir, model, nextRecording, openaiFor, origin, readTree, runtime, users, useProxyHarness, WRITE } from './testing/proxy-harness';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { lastRefusal } from './refusals';
import { overLimitSessionId } from '@/lib/proxy/plan';

useProxyHarness();

describe('the recording proxy, with the official SDKs against the loopback model', () => {
  it('refuses our token without a stored key, an unknown token and no key, in the provider shapes, forwarding nothing', async () => {
    const before = model.requests.length;
    const anthropic = anthropicFor(users[0]!.token);
    const refused = await anthropic.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((refused as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('No Anthropic key is stored') } });
    const unknown = await openaiFor('em_not_a_token').responses.create({ model: 'm', input: 'hi' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((unknown as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
    const bad = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { 'x-entity-memory-token': 'revoked', 'x-api-key': 'sk-ant-own' }, body: '{}' });
    expect(bad.status).toBe(401);
    expect(model.requests.length).toBe(before);
  });

  it('says that a refusal asking again cannot change is not to be retried: Claude Code would retry a plain 401 for three minutes', async () => {
    expect(lastRefusal(users[0]!.id, 'claude-code')).toBeNull();
    const noKey = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': users[0]!.token, 'user-agent': 'claude-cli/2.0.0 (external, cli)' }, body: '{}' });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('x-should-retry')).toBe('false');
    expect(((await noKey.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
    // Nothing is recorded for it, so the Connect card shows it as Claude Code's failed exchange from this note.
    expect(lastRefusal(users[0]!.id, 'claude-code')).toMatchObject({ status: 401, message: expect.stringContaining('No Anthropic key is stored') });
    const unknown = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'em_not_a_token' }, body: '{}' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('x-should-retry')).toBe('false');
  });

  it('stored key: streamed Messages reach the client byte for byte; the upstream gets the stored key and never our token', async () => {
    const [a] = users;
    runtime.getProxyUpstreams().set(a!.id, { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-stored-key' });
    const waiting = nextRecording(a!.id);
    const response = await fetch(`${origin}/proxy/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': a!.token, 'anthropic-version': '2023-06-01', 'x-entity-memory-session': 'bytes-check' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 50, stream: true, system: 'You are terse.', tools: [WRITE], messages: [{ role: 'user', content: 'hello [[thinking:consider it]] there' }] }),
    });
    const clientBytes = Buffer.from(await response.arrayBuffer()).toString('utf8');
    const upstream = model.requests.at(-1)!;
    expect(clientBytes).toBe(upstream.sent);
    expect(upstream.headers['x-api-key']).toBe('sk-ant-stored-key');
    expect(JSON.stringify(upstream.headers)).not.toContain(a!.token);
    expect(upstream.headers['x-entity-memory-session']).toBeUndefined();
    const [summary] = await waiting;
    expect(summary).toMatchObject({ sessionId: 'bytes-check', outcome: 'complete', status: 200 });
    const store = await runtime.getUserStore(a!.id);
    const branch = await store.getBranch('bytes-check');
    expect(branch.map((message) => [message.role, message.content])).toEqual([
      ['user', 'hello [[thinking:consider it]] there'],
      ['assistant', 'You said: hello [[thinking:consider it]] there'],
    ]);
    expect(branch[1]!.metadata['thinking']).toEqual([{ text: 'consider it', signature: expect.any(String) }]);
    const row = await store.getSession('bytes-check');
    expect(row).toMatchObject({ source: 'proxy:anthropic', unread: true, turnCount: 1 });
    // The key lives in its owner's folder (a move carries it), 0600, and nowhere else there: not in the history.
    const keyFile = join(dataDir, 'users', a!.id, 'proxy-upstreams.json');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toContain('sk-ant-stored-key');
    const everything = readTree(join(dataDir, 'users'), keyFile);
    expect(everything).not.toContain('sk-ant-stored-key');
    expect(everything).not.toContain(a!.token);
  });

  it('the client gets the upstream\'s bytes exactly: Responses and Chat Completions streams, non-streamed 200s of all three wires', async () => {
    const [, b] = users;
    // non-ASCII text and a tool call: bytes that a re-encoding or a re-serialised event would change
    const text = 'café ✓ naïve [[words:30]]';
    const calls: { name: string; path: string; auth: Record<string, string>; body: unknown; type: RegExp }[] = [
      { name: 'responses stream', path: 'openai/v1/responses', auth: { authorization: 'Bearer sk-own' }, body: { model: 'gpt-test', stream: true, input: text }, type: /^text\/event-stream/ },
      { name: 'chat stream', path: 'openai/v1/chat/completions', auth: { authorization: 'Bearer sk-own' }, body: { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: `${text} [[tool:ls {"path":"é"}]]` }], tools: [{ type: 'function', function: { name: 'ls', parameters: {} } }] }, type: /^text\/event-stream/ },
      { name: 'messages 200', path: 'anthropic/v1/messages', auth: { 'x-api-key': 'sk-own' }, body: { model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: text }] }, type: /^application\/json/ },
      { name: 'responses 200', path: 'openai/v1/responses', auth: { authorization: 'Bearer sk-own' }, body: { model: 'gpt-test', input: text }, type: /^application\/json/ },
      { name: 'chat 200', path: 'openai/v1/chat/completions', auth: { authorization: 'Bearer sk-own' }, body: { model: 'gpt-test', messages: [{ role: 'user', content: text }] }, type: /^application\/json/ },
    ];
    for (const call of calls) {
      const waiting = nextRecording(b!.id);
      const response = await fetch(`${origin}/proxy/${call.path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-entity-memory-token': b!.token, 'x-entity-memory-session': `bytes-${call.name.replace(/ /g, '-')}`, ...call.auth }, body: JSON.stringify(call.body) });
      const received = Buffer.from(await response.arrayBuffer());
      const upstream = model.requests.at(-1)!;
      expect(response.status, call.name).toBe(200);
      expect(response.headers.get('content-type'), call.name).toMatch(call.type);
      expect(received.length, call.name).toBeGreaterThan(200);
      expect(received.equals(Buffer.from(upstream.sent, 'utf8')), call.name).toBe(true);
      expect(await waiting, call.name).toMatchObject([{ outcome: 'complete', status: 200 }]);
    }
  });

  it('Anthropic SDK: a tool call, its result and the answer make one branch; the SDK stream equals the non-streamed answer', async () => {
    const [a] = users;
    const anthropic = anthropicFor(a!.token);
    const prompt = 'make it [[tool:Write {"file_path":"/tmp/x.txt","content":"x"}]]';
    let waiting = nextRecording(a!.id);
    const streamed = await anthropic.messages.stream({ model: 'claude-test', max_tokens: 50, tools: [WRITE], messages: [{ role: 'user', content: prompt }] }).finalMessage();
    const plain = await anthropic.messages.create({ model: 'claude-test', max_tokens: 50, tools: [WRITE], messages: [{ role: 'user', content: prompt }] });
    expect(streamed.content).toEqual(plain.content);
    const [first] = await waiting;
    await nextRecording(a!.id); // the non-streamed call: the same history again, a retry
    const call = streamed.content.find((block) => block.type === 'tool_use')!;
    waiting = nextRecording(a!.id);
    const final = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 50,
      tools: [WRITE],
      messages: [{ role: 'user', content: prompt }, { role: 'assistant', content: streamed.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'File created' }] }],
    });
    expect(final.content).toEqual([{ type: 'text', text: 'Tool result: File created', citations: undefined }].map(({ type, text }) => expect.objectContaining({ type, text })));
    const [last] = await waiting;
    expect(last!.sessionId).toBe(first!.sessionId);
    expect(first!.sessionId).toMatch(/^px-[0-9a-f]{32}$/);
    const store = await runtime.getUserStore(a!.id);
    const branch = await store.getBranch(last!.sessionId);
    expect(branch.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(branch[1]!.siblings).toHaveLength(2);
    expect(branch[1]!.toolCalls.map((tool) => [tool.name, tool.content, tool.input])).toEqual([['Write', 'File created', { file_path: '/tmp/x.txt', content: 'x' }]]);
    expect(branch[2]!.content).toBe('Tool result: File created');
  });

  it('OpenAI SDK, pass-through key: Responses and Chat Completions streamed and not; previous_response_id continues the session', async () => {
    const [, b] = users;
    const openai = openaiFor('sk-own-openai-key', { 'x-entity-memory-token': b!.token });
    let waiting = nextRecording(b!.id, 2);
    const stream = await openai.responses.create({ model: 'gpt-test', input: 'first question', stream: true });
    let streamedText = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') streamedText += event.delta;
    const plain = await openai.responses.create({ model: 'gpt-test', input: 'first question' });
    expect(streamedText).toBe(plain.output_text);
    expect(model.requests.at(-1)!.headers['authorization']).toBe('Bearer sk-own-openai-key');
    expect(model.requests.at(-1)!.headers['x-entity-memory-token']).toBeUndefined();
    const [one] = await waiting;
    waiting = nextRecording(b!.id);
    const second = await openai.responses.create({ model: 'gpt-test', previous_response_id: plain.id, input: [{ role: 'user', content: 'second question' }] });
    const [two] = await waiting;
    expect(two!.sessionId).toBe(one!.sessionId);
    const store = await runtime.getUserStore(b!.id);
    expect((await store.getBranch(two!.sessionId)).map((message) => message.content)).toEqual(['first question', 'You said: first question', 'second question', 'You said: second question']);
    // A restart forgets what the process held: the ids come back from users/<id>/proxy-responses.jsonl.
    (globalThis as Record<symbol, { responses: Map<string, unknown> }>)[Symbol.for('entity-memory.proxy-recorder')]!.responses.clear();
    expect(readFileSync(join(dataDir, 'users', b!.id, 'proxy-responses.jsonl'), 'utf8')).toContain(second.id);
    waiting = nextRecording(b!.id);
    await openai.responses.create({ model: 'gpt-test', previous_response_id: second.id, input: [{ role: 'user', content: 'third question' }] });
    const [three] = await waiting;
    expect(three!.sessionId).toBe(one!.sessionId);
    expect((await store.getBranch(three!.sessionId)).map((message) => message.content)).toEqual(['first question', 'You said: first question', 'second question', 'You said: second question', 'third question', 'You said: third question']);
    expect((await store.getSession(two!.sessionId)).source).toBe('proxy:openai');
    // the key the agent sent is nowhere in the user's data
    expect(readTree(join(dataDir, 'users', b!.id))).not.toContain('sk-own-openai-key');

    waiting = nextRecording(b!.id, 2);
    const chatStream = await openai.chat.completions.create({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'chat [[tool:ls {"path":"."}]]' }], tools: [{ type: 'function', function: { name: 'ls', parameters: {} } }] });
    const calls: string[] = [];
    for await (const chunk of chatStream) for (const call of chunk.choices[0]?.delta.tool_calls ?? []) calls.push(call.function?.arguments ?? '');
    expect(calls.join('')).toBe('{"path":"."}');
    const chatPlain = await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'chat [[tool:ls {"path":"."}]]' }], tools: [{ type: 'function', function: { name: 'ls', parameters: {} } }] });
    expect(chatPlain.choices[0]!.message.tool_calls).toHaveLength(1);
    const [chatOne, chatTwo] = await waiting;
    expect(chatTwo!.sessionId).toBe(chatOne!.sessionId);
    const chatBranch = await store.getBranch(chatOne!.sessionId);
    expect(chatBranch[1]!.metadata['tool_calls']).toEqual([{ id: 'call_1', name: 'ls', arguments: '{"path":"."}' }]);
    expect((await openai.models.list()).data.map((entry) => entry.id)).toContain('test-model');
  });

  it('another user\'s token records nothing into your sessions, even naming your session', async () => {
    const [a, b] = users;
    const storeA = await runtime.getUserStore(a!.id);
    const before = (await storeA.getNodes('bytes-check')).length;
    const waiting = nextRecording(b!.id);
    await openaiFor('sk-own', { 'x-entity-memory-token': b!.token, 'x-entity-memory-session': 'bytes-check' }).responses.create({ model: 'm', input: 'intruder' });
    await waiting;
    expect((await storeA.getNodes('bytes-check')).length).toBe(before);
    const storeB = await runtime.getUserStore(b!.id);
    expect((await storeB.getBranch('bytes-check')).map((message) => message.content)).toEqual(['intruder', 'You said: intruder']);
  });

  it('upstream errors pass through unchanged and are recorded with their status; an error event after a 200 and a cut stream too', async () => {
    const [, b] = users;
    const headers = { 'content-type': 'application/json', 'x-entity-memory-token': b!.token, 'x-api-key': 'sk-own' };
    let waiting = nextRecording(b!.id);
    const failed = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { ...headers, 'x-entity-memory-session': 'errors' }, body: JSON.stringify({ max_tokens: 5, messages: [{ role: 'user', content: '[[fail]]' }] }) });
    expect(failed.status).toBe(529);
    expect(await failed.text()).toBe(model.requests.at(-1)!.sent);
    expect(await waiting).toMatchObject([{ outcome: 'upstream_error', status: 529 }]);
    waiting = nextRecording(b!.id);
    const late = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { ...headers, 'x-entity-memory-session': 'errors' }, body: JSON.stringify({ max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'one two three [[fail:event]]' }] }) });
    expect(late.status).toBe(200);
    expect(await late.text()).toContain('event: error');
    expect(await waiting).toMatchObject([{ outcome: 'error_event', status: 200 }]);
    waiting = nextRecording(b!.id);
    const cut = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { ...headers, 'x-entity-memory-session': 'errors' }, body: JSON.stringify({ max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'one two three [[fail:stream]]' }] }) });
    await cut.text().catch(() => '');
    await waiting;
    const store = await runtime.getUserStore(b!.id);
    const nodes = await store.getNodes('errors');
    const replies = nodes.filter((node) => node.role === 'assistant');
    expect(replies.map((node) => (node.metadata['proxy'] as { status: number; outcome: string }).outcome)).toEqual(['upstream_error', 'error_event', 'timeout']);
    expect(replies[0]!.metadata['error']).toContain('Overloaded');
    expect(replies[1]).toMatchObject({ content: 'You said: ', metadata: { error: expect.stringContaining('Overloaded') } });
    expect(replies[2]!.content).toBe('You said: ');
    expect(replies[2]!.metadata['error']).toMatch(/timed out or broke off/);
    expect((await store.getSession('errors')).status).toBe('failed');
  });

  it('an error event after a 200 is recorded as a failed turn, alone in its session (Messages and Responses)', async () => {
    const [, b] = users;
    const store = await runtime.getUserStore(b!.id);
    const calls: { session: string; path: string; auth: Record<string, string>; body: unknown; marker: string }[] = [
      { session: 'late-messages', path: 'anthropic/v1/messages', auth: { 'x-api-key': 'sk-own' }, body: { max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'one two three [[fail:event]]' }] }, marker: 'event: error' },
      { session: 'late-responses', path: 'openai/v1/responses', auth: { authorization: 'Bearer sk-own' }, body: { model: 'm', stream: true, input: 'one two three [[fail:event]]' }, marker: 'response.failed' },
    ];
    for (const call of calls) {
      const waiting = nextRecording(b!.id);
      const response = await fetch(`${origin}/proxy/${call.path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-entity-memory-token': b!.token, 'x-entity-memory-session': call.session, ...call.auth }, body: JSON.stringify(call.body) });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain(call.marker);
      expect(await waiting).toMatchObject([{ sessionId: call.session, outcome: 'error_event', status: 200 }]);
      // the only turn of the session failed: the session says so, not 'idle' with a note in metadata
      expect((await store.getSession(call.session)).status).toBe('failed');
      const reply = (await store.getNodes(call.session)).find((node) => node.role === 'assistant')!;
      expect(reply.metadata).toMatchObject({ error: expect.any(String), proxy: { outcome: 'error_event', status: 200 } });
    }
  });

  it('an upstream that sends nothing for too long: 504 in the provider shape, recorded as timed out', async () => {
    const [, b] = users;
    const waiting = nextRecording(b!.id);
    const response = await fetch(`${origin}/proxy/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-entity-memory-token': b!.token, authorization: 'Bearer sk-own', 'x-entity-memory-session': 'slow' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'too slow [[wait:4000]]' }] }),
    });
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: { type: 'server_error', message: expect.stringContaining('sent nothing') } });
    expect(await waiting).toMatchObject([{ sessionId: 'slow', outcome: 'timeout' }]);
    const store = await runtime.getUserStore(b!.id);
    expect((await store.getSession('slow')).status).toBe('failed');
    const [, reply] = (await store.getNodes('slow'));
    expect(reply).toMatchObject({ role: 'assistant', content: '', metadata: { error: 'the upstream timed out or broke off', proxy: { outcome: 'timeout', status: 504 } } });
  });

  it('a client that goes away is still recorded, with what came', async () => {
    const [, b] = users;
    const waiting = nextRecording(b!.id);
    const controller = new AbortController();
    const response = await fetch(`${origin}/proxy/openai/v1/responses`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', 'x-entity-memory-token': b!.token, authorization: 'Bearer sk-own', 'x-entity-memory-session': 'dropped' },
      body: JSON.stringify({ model: 'm', stream: true, input: 'slow [[delay:40]] [[words:40]]' }),
    });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    controller.abort();
    const [summary] = await waiting;
    expect(summary).toMatchObject({ sessionId: 'dropped', outcome: 'client_gone' });
    const store = await runtime.getUserStore(b!.id);
    const nodes = await store.getNodes('dropped');
    expect(nodes.map((node) => node.role)).toEqual(['user', 'assistant']);
    expect((await store.getSession('dropped')).status).toBe('cancelled');
  });

  it('a body over the limit answers 413 and records a metadata-only turn', async () => {
    const [, b] = users;
    const waiting = nextRecording(b!.id);
    const huge = JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x'.repeat(33 * 1024 * 1024) }] });
    const before = model.requests.length;
    const response = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { 'x-entity-memory-token': b!.token, 'x-api-key': 'k', 'x-entity-memory-session': 'huge' }, body: huge });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
    await waiting;
    expect(model.requests.length).toBe(before);
    const store = await runtime.getUserStore(b!.id);
    const nodes = await store.getNodes('huge');
    expect(nodes).toHaveLength(1);
    expect(nodes[0]!.content).toMatch(/over the proxy's limit/);

    // No header names a session (an SDK): the metadata-only turn goes to the upstream's own session.
    const unnamed = nextRecording(b!.id);
    const again = await fetch(`${origin}/proxy/anthropic/v1/messages`, { method: 'POST', headers: { 'x-entity-memory-token': b!.token, 'x-api-key': 'k' }, body: huge });
    expect(again.status).toBe(413);
    const [summary] = await unnamed;
    expect(summary).toMatchObject({ sessionId: overLimitSessionId('anthropic'), status: 413, outcome: 'too_large' });
    const overLimit = await store.getNodes(summary!.sessionId);
    expect(overLimit.map((node) => node.content)).toEqual([expect.stringMatching(/^\[a request of \d+ bytes, over the proxy's limit: not recorded\]$/)]);
    expect((await store.getSession(summary!.sessionId)).source).toBe('proxy:anthropic');
    expect(model.requests.length).toBe(before);
  });
});
