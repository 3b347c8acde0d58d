import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError, PayloadTooLargeError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { manualClock, tempStoresPerTest } from '../testing/temp-store.js';
import { SessionStore } from '../session-store.js';
import { openSession } from '../session/session-access.js';
import type { StoreContext } from '../session/store-context.js';
import { contentOf } from '../dag/message-shape.js';
import { STUB_CONTENT_CHARS } from '../dag/node-stub.js';

describe('the conversation DAG', () => {
  const open = tempStoresPerTest();
  async function fresh(options: Parameters<typeof open>[0] = {}) {
    const temp = await open(options);
    await temp.store.createSession({ id: 's' });
    return temp;
  }

  it('chains messages on the head when no parent is given and moves the head', async () => {
    const { store } = await fresh();
    const u = await store.appendMessage('s', { role: 'user', content: 'hi' });
    expect(u.parentId).toBeNull();
    expect(u.seq).toBe(0);
    const a = await store.appendMessage('s', { role: 'assistant', content: 'hello', name: 'model-x' });
    expect(a.parentId).toBe(u.id);
    expect((await store.getSession('s')).headId).toBe(a.id);
    expect(a).toMatchObject({ role: 'assistant', name: 'model-x', calledBy: null, seq: 1 });
  });

  it('moves the head only when the parent is the head; siblings fork', async () => {
    const { store } = await fresh();
    const u = await store.appendMessage('s', { role: 'user', content: 'q' });
    const a1 = await store.appendMessage('s', { role: 'assistant', content: 'first' });
    const a2 = await store.appendMessage('s', { role: 'assistant', content: 'second', parentId: u.id });
    expect((await store.getSession('s')).headId).toBe(a1.id); // parent was not the head
    const branch = await store.getBranch('s', a2.id);
    expect(branch.map((m) => m.content)).toEqual(['q', 'second']);
    expect(branch[1]!.siblings).toEqual([a1.id, a2.id]);
    await store.setHead('s', a2.id);
    expect((await store.getBranch('s')).map((m) => m.content)).toEqual(['q', 'second']);
    const branches = await store.listBranches('s');
    expect(branches.map((b) => [b.headId, b.current])).toEqual([
      [a1.id, false],
      [a2.id, true],
    ]);
  });

  it('hangs tool results off their caller, folded under it, without moving the head', async () => {
    const { store } = await fresh();
    await store.appendMessage('s', { role: 'user', content: 'list' });
    const call = await store.appendMessage('s', { role: 'assistant', content: 'looking' });
    const tool = await store.appendMessage('s', { role: 'tool', content: { files: ['a'] }, calledBy: call.id, name: 'ls', input: { path: '.' } });
    expect(tool).toMatchObject({ parentId: null, calledBy: call.id, content: '{"files":["a"]}', name: 'ls', input: { path: '.' } });
    expect((await store.getSession('s')).headId).toBe(call.id);
    const done = await store.appendMessage('s', { role: 'assistant', content: 'found a' });
    const branch = await store.getBranch('s');
    expect(branch.map((m) => m.id)).toEqual([branch[0]!.id, call.id, done.id]);
    expect(branch[1]!.toolCalls.map((t) => t.id)).toEqual([tool.id]);
    await expect(store.appendMessage('s', { role: 'tool', content: 'x' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.appendMessage('s', { role: 'tool', content: 'x', calledBy: 'missing' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('is idempotent for the same id and content, and a CONFLICT for other content', async () => {
    const { store, dir } = await fresh();
    const first = await store.appendMessage('s', { id: 'm1', role: 'user', content: 'same' });
    const again = await store.appendMessage('s', { id: 'm1', role: 'user', content: 'same' });
    expect(again).toEqual(first);
    await expect(store.appendMessage('s', { id: 'm1', role: 'user', content: 'other' })).rejects.toBeInstanceOf(ConflictError);
    expect(readdirSync(join(dir, 'sessions', 's', 'history'))).toHaveLength(1);
  });

  it('refuses malformed messages and writes nothing', async () => {
    const { store, dir } = await fresh();
    const bad: unknown[] = [
      { role: 'robot', content: 'x' },
      { role: 'user', content: 42 },
      { role: 'user', content: 'x', metadata: [] },
      { role: 'user', content: 'x', parentId: 'missing' },
      { role: 'user', content: 'x', name: 5 },
    ];
    for (const message of bad) {
      await expect(store.appendMessage('s', message as never)).rejects.toThrow();
    }
    expect(() => readdirSync(join(dir, 'sessions', 's', 'history'))).toThrow();
  });

  it('refuses JSON nested too deep in content, input or metadata with a clear error, and writes nothing', async () => {
    const { store, dir } = await fresh();
    await store.appendMessage('s', { id: 'a', role: 'assistant', content: 'calling' });
    let deep: unknown = 'leaf';
    for (let i = 0; i < 5_000; i++) deep = { d: deep };
    const cases = [
      { role: 'user', content: 'x', metadata: { deep } },
      { role: 'assistant', content: 'x', input: deep },
      { role: 'tool', calledBy: 'a', content: [deep] },
    ];
    for (const message of cases) {
      await expect(store.appendMessage('s', message as never)).rejects.toThrow(InvalidInputError);
      await expect(store.appendMessage('s', message as never)).rejects.toThrow(/nested deeper than 64 levels/);
    }
    expect(readdirSync(join(dir, 'sessions', 's', 'history'))).toHaveLength(1);
    // 64 levels are fine.
    let ok: unknown = 1;
    for (let i = 0; i < 63; i++) ok = [ok];
    await expect(store.appendMessage('s', { role: 'user', content: 'x', metadata: { ok } })).resolves.toMatchObject({ metadata: { ok } });
  });

  it('50 concurrent appends all land with unique, consecutive seqs', async () => {
    const { store } = await fresh();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.appendMessage('s', { role: 'user', content: `m${i}`, parentId: null })),
    );
    const seqs = results.map((m) => m.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const nodes = await store.getNodes('s');
    expect(nodes).toHaveLength(50);
    expect(new Set(nodes.map((n) => n.content)).size).toBe(50);
  });

  it('appending moves updated_at and the preview; the event carries both', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    clock.advance(60);
    await store.appendMessage('s', { role: 'user', content: '  what\nnow  ' });
    const row = await store.getSession('s');
    expect(row.updatedAt).toBe(Math.round(clock.now() * 1000));
    expect(row.preview).toBe('what now');
    expect(events.map((e) => e.type)).toEqual(['message_appended', 'session_updated']);
    expect(events[1]!.data).toEqual({ id: 's', updatedAt: row.updatedAt, preview: 'what now' });
    // An assistant reply moves recency but keeps the preview (the latest user message).
    clock.advance(5);
    await store.appendMessage('s', { role: 'assistant', content: 'reply' });
    expect((await store.getSession('s')).preview).toBe('what now');
    expect((await store.getSession('s')).updatedAt).toBe(Math.round(clock.now() * 1000));
  });

  it('record nodes neither move the head nor the recency', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    const u = await store.appendMessage('s', { role: 'user', content: 'x' });
    const before = await store.getSession('s');
    clock.advance(100);
    const record = await store.appendRecordNode('s', (seq, now) => ({
      id: 'reloc_0123456789',
      created_at: now,
      seq,
      role: 'code',
      name: 'project/relocate',
      input: null,
      output: '/a → /b',
      caller: 'ROOT',
      predecessor: null,
      reads: [],
      metadata: { display: 'runtime' },
    }));
    const after = await store.getSession('s');
    expect(after.headId).toBe(u.id);
    expect(after.updatedAt).toBe(before.updatedAt);
    expect((await store.getNodes('s')).map((n) => n.id)).toContain(record.id);
    expect((await store.getBranch('s')).map((m) => m.id)).toEqual([u.id]);
  });

  it('walks a damaged DAG with a cycle without looping', async () => {
    const { store } = await fresh();
    const a = await store.appendMessage('s', { id: 'a1', role: 'user', content: 'a' });
    const b = await store.appendMessage('s', { id: 'b1', role: 'assistant', content: 'b', parentId: a.id });
    // Forge a cycle the way a foreign writer could: a's predecessor is b.
    const internal = (await import('../session/session-access.js')).openSession;
    const session = internal((store as unknown as { ctx: Parameters<typeof internal>[0] }).ctx, 's');
    session.graph.get('a1')!.predecessor = b.id;
    const branch = await store.getBranch('s', b.id);
    expect(branch.map((m) => m.id).sort()).toEqual(['a1', 'b1']);
  });
});

describe('large messages', () => {
  const open = tempStoresPerTest();
  const graphOf = (store: SessionStore, id: string) => openSession((store as unknown as { ctx: StoreContext }).ctx, id).graph;
  const historyFiles = (dir: string) => readdirSync(join(dir, 'sessions', 's', 'history'));

  it('refuses a message over the cap with PAYLOAD_TOO_LARGE and writes nothing', async () => {
    const { store, dir } = await open({ maxMessageBytes: 64 * 1024 });
    await store.createSession({ id: 's' });
    const first = await store.appendMessage('s', { role: 'user', content: 'fits' });
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    await expect(store.appendMessage('s', { role: 'assistant', content: 'x'.repeat(64 * 1024 + 1) })).rejects.toThrow(PayloadTooLargeError);
    await expect(store.appendMessage('s', { role: 'assistant', content: 'ok', metadata: { blob: 'y'.repeat(64 * 1024) } })).rejects.toThrow(
      'message is 64.0 KiB (content, input and metadata); the limit is 64 KiB. Save large output as an attachment instead.',
    );
    expect(events).toEqual([]);
    expect(historyFiles(dir)).toHaveLength(1);
    expect((await store.getSession('s')).headId).toBe(first.id);
    // Exactly at the cap is allowed.
    await store.appendMessage('s', { role: 'assistant', content: 'z'.repeat(64 * 1024) });
  });

  it('keeps large contents on disk: memory holds a stub, every read gives the whole message', async () => {
    const { store, dir } = await open();
    await store.createSession({ id: 's' });
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    const text = `Heading\n${'é'.repeat(300_000)}`;
    const u = await store.appendMessage('s', { role: 'user', content: text });
    const a = await store.appendMessage('s', { role: 'assistant', content: 'short reply' });
    const tool = await store.appendMessage('s', { role: 'tool', calledBy: a.id, name: 'read_file', input: { path: 'x'.repeat(20_000) }, content: { data: 'd'.repeat(50_000) } });
    expect(u.content).toBe(text);

    const appended = events.filter((e) => e.type === 'message_appended').map((e) => e.data as { message: { id: string; content: string; truncated?: true; input: unknown } });
    expect(appended[0]!.message).toMatchObject({ id: u.id, truncated: true, content: text.slice(0, STUB_CONTENT_CHARS) });
    expect(appended[1]!.message).toEqual(a);
    expect(appended[2]!.message).toMatchObject({ id: tool.id, truncated: true, input: null });

    const graph = graphOf(store, 's');
    expect(graph.isOnDisk(u.id)).toBe(true);
    expect(contentOf(graph.get(u.id)!).length).toBe(STUB_CONTENT_CHARS);
    expect(graph.get(tool.id)!.input).toBeNull();

    const branch = await store.getBranch('s');
    expect(branch[0]!.content).toBe(text);
    expect(branch[1]!.toolCalls[0]).toEqual(tool);
    expect((await store.getBranchWindow('s', { limit: 1, before: a.id }))[0]!.content).toBe(text);
    expect((await store.getNodes('s')).map((m) => m.content.length)).toEqual([text.length, 11, JSON.stringify({ data: 'd'.repeat(50_000) }).length]);
    expect((await store.listNodes('s', { limit: 1 })).messages[0]!.content).toBe(text);
    // The same id and content again is still idempotent against the file's content.
    expect(await store.appendMessage('s', { id: u.id, role: 'user', content: text })).toEqual(u);
    await expect(store.appendMessage('s', { id: u.id, role: 'user', content: `${text}!` })).rejects.toThrow(ConflictError);
    expect((await store.getSession('s')).preview).toBe(`Heading ${'é'.repeat(69)}…`);

    // A cold open keeps the stub too.
    await store.close();
    const reopened = await SessionStore.open({ stateDir: dir });
    try {
      expect(graphOf(reopened, 's').isOnDisk(u.id)).toBe(true);
      expect((await reopened.getBranch('s'))[0]!.content).toBe(text);
    } finally {
      await reopened.close();
    }
  });

  it('holds a bounded amount of content in memory however much one user sends', async () => {
    const { store } = await open();
    await store.createSession({ id: 's' });
    for (let i = 0; i < 40; i++) await store.appendMessage('s', { role: i % 2 === 0 ? 'user' : 'assistant', content: `${i} ${'m'.repeat(200_000)}` });
    let inMemory = 0;
    for (const node of graphOf(store, 's').bySeq) inMemory += contentOf(node).length;
    // 8 MB were sent; memory keeps the first characters of each.
    expect(inMemory).toBeLessThanOrEqual(40 * STUB_CONTENT_CHARS);
  });

  it('keeps one user\'s open sessions within a budget of characters, evicting the least recent', async () => {
    const { store } = await open({ cacheChars: 200_000 });
    const cache = (store as unknown as { ctx: StoreContext }).ctx.cache;
    for (const id of ['a', 'b']) {
      await store.createSession({ id });
      for (let i = 0; i < 20; i++) await store.appendMessage(id, { role: 'user', content: `${id}${i} ${'k'.repeat(6_000)}` });
    }
    // Each holds ~126,000 characters whole: both together are over the budget.
    expect(cache.has('b')).toBe(true);
    expect(cache.has('a')).toBe(false);
    expect((await store.getBranch('a')).map((m) => m.content.slice(0, 3))).toEqual(Array.from({ length: 20 }, (_, i) => `a${i} `.slice(0, 3)));
    expect(cache.calculatedSize).toBeLessThanOrEqual(200_000);
  });
});
