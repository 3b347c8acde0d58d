import { rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../store/index.js';
import { indexedStoresPerTest } from './testing/indexed-store.js';
import { SCHEMA_VERSION, SearchIndex, type SearchPage } from './search-index.js';
import { openSqlite } from './sqlite.js';
import { storeSource } from './store-source.js';

const indexedStore = indexedStoresPerTest();

async function conversation(store: SessionStore, title: string, turns: Array<[string, string]>): Promise<{ id: string; ids: string[] }> {
  const { row } = await store.createSession({ title });
  const ids: string[] = [];
  for (const [question, answer] of turns) {
    ids.push((await store.appendMessage(row.id, { role: 'user', content: question })).id);
    ids.push((await store.appendMessage(row.id, { role: 'assistant', content: answer })).id);
  }
  return { id: row.id, ids };
}

function marked(page: SearchPage): string[] {
  return page.hits.map((hit) => hit.snippet.filter((segment) => segment.match).map((segment) => segment.text).join('|'));
}

describe('SearchIndex', () => {
  it('on a full disk keeps what it has and its queued writes, and writes them once there is room', async () => {
    const { store, index } = await indexedStore();
    const before = await conversation(store, 'Before', [['the quokka question', 'the quokka answer']]);
    const { row: duringRow } = await store.createSession({ title: 'During' });
    // the new session's own read (its feed record) is written before the disk fills
    await index.caughtUp();
    index.flush();
    // SQLite's own page limit answers SQLITE_FULL, as a full disk does.
    const db = (index as unknown as { db: { exec(sql: string): void; prepare(sql: string): { get(): Record<string, unknown> | undefined } } }).db;
    const pages = Number(db.prepare('PRAGMA page_count').get()!['page_count']);
    db.exec(`PRAGMA max_page_count = ${pages}`);
    // Too large for their events (a stub each): read from the session and written, or kept for later, one by one.
    const during = { ids: [] as string[] };
    for (let i = 0; i < 20; i++) {
      during.ids.push((await store.appendMessage(duringRow.id, { role: 'user', content: `the wombat question ${i} ${'filler words '.repeat(2000)}` })).id);
      await store.appendMessage(duringRow.id, { role: 'assistant', content: `answer ${i}` });
    }
    index.flush();
    expect(index.search('quokka').hits.map((hit) => hit.messageId)).toEqual(before.ids.slice().reverse());
    expect(index.search('wombat').hits).toEqual([]);
    // what waits for room is reported, not dropped
    expect(index.status.state).toBe('catching_up');
    db.exec('PRAGMA max_page_count = 1073741823');
    await index.caughtUp();
    expect(index.status.state).toBe('ready');
    expect(index.search('wombat', { limit: 100 }).hits.map((hit) => hit.messageId).sort()).toEqual(during.ids.slice().sort());
    expect(index.search('quokka').hits).toHaveLength(2);
  });

  it('finds message words as they are appended, and names session and message', async () => {
    const { store, index } = await indexedStore();
    const { id, ids } = await conversation(store, 'Retries', [['how does the retry policy work?', 'It backs off exponentially.']]);
    const page = index.search('exponentially');
    expect(page.hits).toHaveLength(1);
    expect(page.hits[0]).toMatchObject({ sessionId: id, messageId: ids[1], kind: 'assistant', title: 'Retries', archived: false });
    expect(marked(page)).toEqual(['exponentially']);
    expect(page.status.state).toBe('ready');
  });

  it('finds CJK without spaces: a three-character Japanese query and a two-character Chinese word', async () => {
    const { store, index } = await indexedStore();
    const ja = await conversation(store, 'ja', [['日本語のエラーメッセージを直す', 'はい']]);
    const zh = await conversation(store, 'zh', [['请帮我整理数据库的备份', '好的']]);
    expect(index.search('エラー').hits.map((hit) => [hit.sessionId, hit.messageId])).toEqual([[ja.id, ja.ids[0]]]);
    const two = index.search('备份');
    expect(two.hits.map((hit) => hit.messageId)).toEqual([zh.ids[0]]);
    expect(marked(two)).toEqual(['备份']);
    // one character, and a long and a short term together
    expect(index.search('库').hits.map((hit) => hit.messageId)).toEqual([zh.ids[0]]);
    expect(index.search('整理数据 备份').hits).toHaveLength(1);
    expect(index.search('整理数据 日本').hits).toHaveLength(0);
  });

  it('indexes titles and tool calls, marked as such', async () => {
    const { store, index } = await indexedStore();
    const { row } = await store.createSession({ title: 'Quarterly zebra report' });
    const user = await store.appendMessage(row.id, { role: 'user', content: 'parse it' });
    const assistant = await store.appendMessage(row.id, { role: 'assistant', content: 'calling a tool', parentId: user.id });
    await store.appendMessage(row.id, { role: 'tool', name: 'parse_date', input: { value: '2026-12-01' }, content: { parsed: 'first of December' }, calledBy: assistant.id });
    expect(index.search('zebra').hits).toEqual([expect.objectContaining({ sessionId: row.id, kind: 'title', messageId: null })]);
    expect(index.search('parse_date').hits).toEqual([expect.objectContaining({ kind: 'tool', messageId: assistant.id })]);
    expect(index.search('December').hits).toEqual([expect.objectContaining({ kind: 'tool', messageId: assistant.id })]);
  });

  it('reflects renames, archives and deletes', async () => {
    const { store, index } = await indexedStore();
    const one = await conversation(store, 'Old name', [['walrus question', 'walrus answer']]);
    const two = await conversation(store, 'Other', [['walrus again', 'ok']]);
    await store.updateSession(one.id, { title: 'Shiny new name' });
    expect(index.search('Old name').hits.filter((hit) => hit.kind === 'title')).toEqual([]);
    expect(index.search('Shiny').hits.map((hit) => hit.sessionId)).toEqual([one.id]);

    await store.setArchived(one.id, true);
    expect(index.search('walrus', { scope: 'active' }).hits.map((hit) => hit.sessionId)).toEqual([two.id]);
    expect(index.search('walrus', { scope: 'archived' }).hits.map((hit) => [hit.sessionId, hit.archived])).toEqual([
      [one.id, true],
      [one.id, true],
    ]);
    expect(index.search('walrus').hits).toHaveLength(3);

    await store.deleteSession(one.id);
    expect(index.search('walrus').hits.map((hit) => hit.sessionId)).toEqual([two.id]);
    index.flush();
    const db = await openSqlite(index.path);
    expect(db.prepare('SELECT count(*) AS n FROM docs WHERE session_id = ?').get(one.id)).toEqual({ n: 0 });
    db.close();
  });

  it('pages by cursor and keeps a session’s hits together', async () => {
    const { store, index } = await indexedStore();
    const a = await conversation(store, 'A', [['kiwi 1', 'kiwi 2']]);
    const b = await conversation(store, 'B', [['kiwi 3', 'x']]);
    await store.appendMessage(a.id, { role: 'user', content: 'kiwi 4' });
    const first = index.search('kiwi', { limit: 3 });
    // newest hit first (a's "kiwi 4"), then a's other hit beside it, then b's
    expect(first.hits.map((hit) => hit.sessionId)).toEqual([a.id, a.id, b.id]);
    expect(first.nextCursor).not.toBeNull();
    const second = index.search('kiwi', { limit: 3, cursor: first.nextCursor });
    expect(second.hits.map((hit) => hit.messageId)).toEqual([a.ids[0]]);
    expect(second.nextCursor).toBeNull();
    expect(() => index.search('kiwi', { cursor: 'bogus' })).toThrow('invalid cursor');
    expect(() => index.search('kiwi', { limit: 0 })).toThrow('limit must be');
  });

  it('never holds or returns another user’s text: one index per store', async () => {
    const alice = await indexedStore();
    const bob = await indexedStore();
    await conversation(alice.store, 'secret', [['alice-only platypus', 'ok']]);
    await conversation(bob.store, 'mine', [['bob talks about otters', 'ok']]);
    expect(alice.index.search('platypus').hits).toHaveLength(1);
    expect(bob.index.search('platypus').hits).toEqual([]);
    expect(alice.index.search('otters').hits).toEqual([]);
  });

  it('an index deleted while in use is rebuilt from the sessions, and nothing is lost', async () => {
    const { store, index, path } = await indexedStore();
    const before = await conversation(store, 'before', [['ocelot before the loss', 'ok']]);
    expect(index.search('ocelot').hits).toHaveLength(1);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    const after = await conversation(store, 'after', [['ocelot after the loss', 'ok']]);
    const during = index.search('ocelot');
    expect(during.status.state).toBe('catching_up');
    await index.caughtUp();
    const found = index.search('ocelot');
    expect(found.status.state).toBe('ready');
    expect(found.hits.map((hit) => hit.sessionId).sort()).toEqual([before.id, after.id].sort());
  });

  it('a corrupt file is replaced and rebuilt on open', async () => {
    const { store, index, path } = await indexedStore();
    const { id } = await conversation(store, 'c', [['capybara facts', 'ok']]);
    await index.close();
    for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
    writeFileSync(path, 'this is not an SQLite database'.repeat(200));
    const reopened = await SearchIndex.open({ path, source: storeSource(store), onError: () => undefined });
    try {
      await reopened.caughtUp();
      expect(reopened.search('capybara').hits.map((hit) => hit.sessionId)).toEqual([id]);
    } finally {
      await reopened.close();
    }
  });

  it('an index of another schema version, or one whose rebuild never finished, is rebuilt', async () => {
    const { store, index, path } = await indexedStore();
    const { id } = await conversation(store, 'v', [['axolotl notes', 'ok']]);
    index.flush();
    await index.close();
    for (const change of [`PRAGMA user_version = ${SCHEMA_VERSION - 1}`, "UPDATE meta SET value = '0' WHERE key = 'complete'"]) {
      const db = await openSqlite(path);
      // the stale file also lost its rows: only a rebuild finds the message again
      db.exec(`DELETE FROM docs; ${change}`);
      db.close();
      const reopened = await SearchIndex.open({ path, source: storeSource(store), onError: () => undefined });
      try {
        expect(reopened.status.state).toBe('catching_up');
        await reopened.caughtUp();
        expect(reopened.search('axolotl').hits.map((hit) => hit.sessionId)).toEqual([id]);
        const check = await openSqlite(path);
        expect(check.prepare('PRAGMA user_version').get()).toEqual({ user_version: SCHEMA_VERSION });
        check.close();
      } finally {
        await reopened.close();
      }
    }
  });

  it('a valid index is opened as it is, without a rebuild', async () => {
    const { store, index, path } = await indexedStore();
    await conversation(store, 'keep', [['narwhal', 'ok']]);
    index.flush();
    await index.close();
    let read = 0;
    const source = storeSource(store);
    const counting = { ...source, nodes: (id: string) => (read++, source.nodes(id)) };
    const reopened = await SearchIndex.open({ path, source: counting });
    try {
      expect(reopened.status.state).toBe('ready');
      expect(reopened.search('narwhal').hits).toHaveLength(1);
      expect(read).toBe(0);
    } finally {
      await reopened.close();
    }
  });

  it('an index its process never closed (killed with writes queued) is rebuilt on the next open', async () => {
    const { store, path } = await indexedStore();
    const { id } = await conversation(store, 'k', [['quokka in the queue', 'ok']]);
    // the first index still has "quokka" queued: as after a SIGKILL, the file lacks it
    const next = await SearchIndex.open({ path, source: storeSource(store), onError: () => undefined });
    try {
      expect(next.status.state).toBe('catching_up');
      await next.caughtUp();
      expect(next.search('quokka').hits.map((hit) => hit.sessionId)).toEqual([id]);
    } finally {
      await next.close();
    }
  });

  it('a status read as soon as a rebuild starts already counts the sessions (the reindex answer printed "0/0")', async () => {
    const { store, index } = await indexedStore();
    for (let i = 0; i < 3; i++) await conversation(store, `c${i}`, [[`ibis ${i}`, 'ok']]);
    const rebuilt = index.rebuild();
    expect(index.status).toEqual({ state: 'catching_up', done: 0, total: 3 });
    await rebuilt;
    expect(index.status).toEqual({ state: 'ready', done: 3, total: 3 });
  });

  it('rebuild() reports progress up to every session', async () => {
    const { store, index } = await indexedStore();
    for (let i = 0; i < 30; i++) await conversation(store, `s${i}`, [[`gecko ${i}`, 'ok']]);
    const seen: Array<[number, number]> = [];
    await index.rebuild((status) => seen.push([status.done, status.total]));
    expect(seen[0]).toEqual([0, 30]);
    expect(seen[seen.length - 1]).toEqual([30, 30]);
    expect(index.search('gecko', { limit: 100 }).hits).toHaveLength(30);
  });

  it('a message too large for its event (which carries a stub) is indexed whole, its end and a tool call\'s arguments too', async () => {
    const { store, index } = await indexedStore();
    const { row } = await store.createSession({ title: 'big' });
    const long = await store.appendMessage(row.id, { role: 'user', content: `${'filler words '.repeat(1000)} the okapi at the end` });
    const call = await store.appendMessage(row.id, { role: 'tool', name: 'grep', input: { pattern: 'tapir', padding: 'p'.repeat(5000) }, content: 'no match', calledBy: long.id });
    await index.caughtUp();
    expect(index.search('okapi').hits.map((hit) => hit.messageId)).toEqual([long.id]);
    expect(index.search('tapir').hits.map((hit) => [hit.kind, hit.messageId])).toEqual([['tool', long.id]]);
    expect(call.id).toBeTruthy();
  });

  it('refuses an empty query', async () => {
    const { index } = await indexedStore();
    expect(() => index.search('  ')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });
});
