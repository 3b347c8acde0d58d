import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoreEvent } from '../events.js';
import { tempStoresPerTest } from '../testing/temp-store.js';
import type { ExchangeStep } from './record-exchange.js';

// The proxy's fingerprints are chained hashes; here the chain is spelled out, which is enough
// for the store: it only compares them.
const user = (fp: string, content: string): ExchangeStep => ({ role: 'user', fingerprint: fp, content });
const assistant = (fp: string, content: string, toolCalls?: ExchangeStep['toolCalls']): ExchangeStep => ({ role: 'assistant', fingerprint: fp, content, toolCalls });
const result = (callId: string, content: string): ExchangeStep => ({ role: 'tool', callId, content });
const options = { source: 'proxy:anthropic', agentId: 'anthropic' };

describe('recordExchange: where an exchange goes in the DAG', () => {
  const open = tempStoresPerTest();

  it('creates the session, appends the request and the reply, commits one turn, stores the system prompt once', async () => {
    const { store } = await open();
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    const first = await store.recordExchange({ sessionId: 'px-1', steps: [user('u1', 'hello')], reply: assistant('u1a1', 'hi there'), system: 'be kind', context: { model: 'm' } }, options);
    expect(first.created).toBe(true);
    expect(first.parentId).toBeNull();
    expect(first.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    const second = await store.recordExchange({ sessionId: 'px-1', steps: [user('u1', 'hello'), assistant('u1a1', 'hi there'), user('u2', 'more')], reply: assistant('u2a2', 'sure'), system: 'be kind' }, options);
    expect(second.created).toBe(false);
    expect(second.parentId).toBe(first.replyId);
    expect((await store.getBranch('px-1')).map((m) => m.content)).toEqual(['hello', 'hi there', 'more', 'sure']);
    const row = await store.getSession('px-1');
    expect(row).toMatchObject({ source: 'proxy:anthropic', agentId: 'anthropic', unread: true, turnCount: 2 });
    const dir = join(store.stateDir, 'sessions', 'px-1');
    expect(readdirSync(join(dir, 'context', 'system'))).toHaveLength(1);
    const context = JSON.parse(readFileSync(join(dir, 'context', 'commits', `${first.replyId}.json`), 'utf8')) as { system: string; model: string };
    expect(context).toEqual({ model: 'm', system: first.systemHash });
    expect(existsSync(join(dir, 'context', 'system', `${first.systemHash}.txt`))).toBe(true);
    expect(events.map((event) => event.type)).toContain('session_created');
    expect(events.filter((event) => event.type === 'turn_committed')).toHaveLength(2);
  });

  it('a retry is a sibling reply and records the retry ref; an edit forks at the message before it', async () => {
    const { store } = await open();
    const a = await store.recordExchange({ sessionId: 's', steps: [user('u1', 'q')], reply: assistant('a1', 'one') }, options);
    const retry = await store.recordExchange({ sessionId: 's', steps: [user('u1', 'q')], reply: assistant('a1b', 'two') }, options);
    expect(retry.retried).toBe(true);
    expect(retry.parentId).toBe(a.parentId ?? (await store.getBranch('s'))[0]!.id);
    const branch = await store.getBranch('s');
    expect(branch.map((m) => m.content)).toEqual(['q', 'two']);
    expect(branch[1]!.siblings).toEqual([a.replyId, retry.replyId]);
    // edit of the second user message: a fork under the first reply
    await store.recordExchange({ sessionId: 's', steps: [user('u1', 'q'), assistant('a1b', 'two'), user('u2', 'next')], reply: assistant('a2', 'ok') }, options);
    const edited = await store.recordExchange({ sessionId: 's', steps: [user('u1', 'q'), assistant('a1b', 'two'), user('u2x', 'next, edited')], reply: assistant('a2x', 'ok again') }, options);
    const forked = await store.getBranch('s');
    expect(forked.map((m) => m.content)).toEqual(['q', 'two', 'next, edited', 'ok again']);
    expect(forked[2]!.siblings).toHaveLength(2);
    expect(edited.parentId).toBe(retry.replyId);
    expect((await store.listBranches('s')).length).toBe(3);
  });

  it('tool calls become tool nodes under their caller when the results come, once', async () => {
    const { store } = await open();
    const calls = [{ id: 'c1', name: 'Write', arguments: '{"file_path":"a"}' }, { id: 'c2', name: 'Read', arguments: '{}' }];
    const first = await store.recordExchange({ sessionId: 's', steps: [user('u', 'do it')], reply: assistant('ua', '', calls) }, options);
    const steps = [user('u', 'do it'), assistant('ua', '', calls), result('c1', 'written'), result('c2', 'read')];
    const second = await store.recordExchange({ sessionId: 's', steps, reply: assistant('uaa', 'done') }, options);
    expect(second.parentId).toBe(first.replyId);
    const branch = await store.getBranch('s');
    expect(branch.map((m) => m.content)).toEqual(['do it', '', 'done']);
    expect(branch[1]!.toolCalls.map((m) => [m.name, m.content, m.input])).toEqual([
      ['Write', 'written', { file_path: 'a' }],
      ['Read', 'read', {}],
    ]);
    // the same results sent again (a retry of the final answer) add no second tool node
    await store.recordExchange({ sessionId: 's', steps, reply: assistant('uaa2', 'done again') }, options);
    expect((await store.getBranch('s'))[1]!.toolCalls).toHaveLength(2);
  });

  it('a conversation with no recorded prefix in a session with messages continues from the head, linked', async () => {
    const { store } = await open();
    const before = await store.recordExchange({ sessionId: 's', steps: [user('u', 'long talk')], reply: assistant('ua', 'long answer') }, options);
    const after = await store.recordExchange({ sessionId: 's', steps: [user('s1', 'Summary of the conversation so far')], reply: assistant('s1a', 'continuing') }, options);
    expect(after.continued).toBe(true);
    const branch = await store.getBranch('s');
    expect(branch.map((m) => m.content)).toEqual(['long talk', 'long answer', 'Summary of the conversation so far', 'continuing']);
    expect(branch[2]!.metadata['continuation_of']).toBe(before.replyId);
    // the next call after the compaction extends the continuation, not the old root
    const next = await store.recordExchange({ sessionId: 's', steps: [user('s1', 'Summary of the conversation so far'), assistant('s1a', 'continuing'), user('s2', 'go on')], reply: assistant('s2a', 'going') }, options);
    expect(next.parentId).toBe(after.replyId);
    expect(next.continued).toBe(false);
  });

  it('an exchange without a reply records the request and a failed status; bad steps write nothing', async () => {
    const { store } = await open();
    const failed = await store.recordExchange({ sessionId: 's', steps: [user('u', 'hello')], reply: null }, { ...options, status: 'failed' });
    expect(failed.replyId).toBeNull();
    expect((await store.getSession('s')).status).toBe('failed');
    expect((await store.getBranch('s')).map((m) => m.content)).toEqual(['hello']);
    await expect(store.recordExchange({ sessionId: 's', steps: [{ role: 'robot' as 'user', content: 'x' }], reply: null }, options)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.recordExchange({ sessionId: 's', steps: [], reply: user('x', 'not an assistant') }, options)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect((await store.getNodes('s')).length).toBe(1);
  });

  it('the injected redactor runs on every node, the system prompt and the context file, and is counted', async () => {
    const secret = 'sk-ant-api03-PLANTED';
    const redactor = <M extends { content: unknown; input?: unknown; metadata?: Record<string, unknown> }>(message: M) => {
      const text = JSON.stringify(message);
      const count = text.split(secret).length - 1;
      return { message: count ? (JSON.parse(text.replaceAll(secret, '[REDACTED:anthropic]')) as M) : message, count };
    };
    const { store } = await open({ redactor });
    const calls = [{ id: 'c1', name: 'Write', arguments: `{"content":"${secret}"}` }];
    await store.recordExchange({ sessionId: 's', steps: [user('u', `my key is ${secret}`)], reply: assistant('ua', 'ok', calls), system: `system ${secret}`, context: { note: secret } }, options);
    await store.recordExchange({ sessionId: 's', steps: [user('u', `my key is ${secret}`), assistant('ua', 'ok', calls), result('c1', `wrote ${secret}`)], reply: assistant('uaa', 'done') }, options);
    const dir = join(store.stateDir, 'sessions', 's');
    const everything = (path: string): string => readdirSync(path, { withFileTypes: true }).map((entry) => (entry.isDirectory() ? everything(join(path, entry.name)) : entry.name.endsWith('.json') || entry.name.endsWith('.txt') ? readFileSync(join(path, entry.name), 'utf8') : '')).join('\n');
    const written = everything(dir);
    expect(written).not.toContain(secret);
    expect(written).toContain('[REDACTED:anthropic]');
    // the user message, the call's arguments, the result (the tool node's input comes from the already clean call)
    expect((await store.getSession('s')) as unknown as { redacted: number }).toMatchObject({ redacted: 3 });
  });
});
