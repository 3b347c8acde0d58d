import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { manualClock, openTempStore, tempDir } from '../testing/temp-store.js';
import { readRegistryOnDisk } from '../testing/registry-on-disk.js';

describe('session lifecycle', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function fresh(options: Parameters<typeof openTempStore>[0] = {}) {
    const temp = await openTempStore(options);
    cleanups.push(temp.cleanup);
    return temp;
  }

  it('creates the repo layout of FORMAT.md and returns an existing id unchanged', async () => {
    const { store, dir } = await fresh();
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    const first = await store.createSession({ id: 's1', source: 'web', agentId: 'main' });
    expect(first.created).toBe(true);
    expect(first.row).toMatchObject({ id: 's1', title: '', source: 'web', status: 'idle', pinned: false, archived: false, unread: false, project: 'Home', preview: null });
    expect(Object.keys(first.row)).toHaveLength(17);
    const again = await store.createSession({ id: 's1', source: 'cli', title: 'other' });
    expect(again).toEqual({ row: first.row, created: false });
    const repo = join(dir, 'sessions', 's1');
    expect(existsSync(join(repo, '.git'))).toBe(true);
    expect(existsSync(join(repo, 'workdir', '.gitkeep'))).toBe(true);
    expect(existsSync(join(repo, 'history'))).toBe(false); // made by the first message, so a shell is recognisable
    const meta = JSON.parse(readFileSync(join(repo, 'meta.json'), 'utf8')) as Record<string, unknown>;
    expect(meta).toMatchObject({ id: 's1', agent_id: 'main', title: '', source: 'web', project_id: 'default', head_id: null, status: 'idle' });
    const index = readRegistryOnDisk(join(dir, 'sessions'));
    for (const field of ['id', 'agent_id', 'title', 'created_at', 'updated_at', 'source', 'channel', 'account_id', 'peer_display', 'peer_id', 'pinned', 'archived', 'group', 'status', 'unread', 'preview']) {
      expect(index['s1']).toHaveProperty(field);
    }
    expect(events.map((event) => event.type)).toEqual(['session_created']);
  });

  it('refuses malformed session and node ids before touching the disk', async () => {
    const { store, dir } = await fresh();
    const before = readdirSync(join(dir, 'sessions')).sort();
    for (const bad of ['..', 'a/b', '', 'projects', '.hidden', 'x'.repeat(129)]) {
      await expect(store.createSession({ id: bad })).rejects.toBeInstanceOf(InvalidInputError);
      await expect(store.getSession(bad)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(store.appendMessage(bad, { role: 'user', content: 'x' })).rejects.toBeInstanceOf(InvalidInputError);
    }
    await store.createSession({ id: 'ok' });
    await expect(store.appendMessage('ok', { id: '../x', role: 'user', content: 'x' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.getBranch('ok', '../x')).rejects.toBeInstanceOf(InvalidInputError);
    expect(readdirSync(join(dir, 'sessions')).sort()).toEqual([...before, 'ok'].sort());
    expect(existsSync(join(dir, 'sessions', 'ok', 'history'))).toBe(false);
  });

  it('answers NOT_FOUND for unknown ids everywhere and creates nothing', async () => {
    const { store, dir } = await fresh();
    const calls: (() => Promise<unknown>)[] = [
      () => store.getSession('nope'),
      () => store.updateSession('nope', { pinned: true }),
      () => store.setArchived('nope', true),
      () => store.deleteSession('nope'),
      () => store.appendMessage('nope', { role: 'user', content: 'x' }),
      () => store.getBranch('nope'),
      () => store.getNodes('nope'),
      () => store.listBranches('nope'),
      () => store.beginTurn('nope'),
      () => store.finalizeTurn('nope'),
      () => store.listCommits('nope'),
      () => store.retry('nope', 'abc'),
      () => store.setHead('nope', 'abc'),
    ];
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(NotFoundError);
    expect(existsSync(join(dir, 'sessions', 'nope'))).toBe(false);
    expect(store.countSessions({ scope: 'all' })).toBe(0);
  });

  it('rename, pin, archive and read flags keep updated_at and the list position; events carry only changed fields', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    for (const id of ['old', 'mid', 'new']) {
      await store.createSession({ id });
      clock.advance(10);
      await store.appendMessage(id, { role: 'user', content: `hello ${id}` });
      clock.advance(10);
    }
    const order = () => store.listSessions({ scope: 'all' }).rows.map((row) => row.id);
    expect(order()).toEqual(['new', 'mid', 'old']);
    const before = (await store.getSession('old')).updatedAt;
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    clock.advance(100);
    await store.updateSession('old', { title: 'Renamed' });
    await store.updateSession('old', { pinned: true, unread: true });
    await store.setArchived('old', true);
    await store.setArchived('old', false);
    const after = await store.getSession('old');
    expect(after.updatedAt).toBe(before);
    expect(after).toMatchObject({ title: 'Renamed', pinned: true, unread: true, archived: false, userTitled: true });
    expect(order()).toEqual(['new', 'mid', 'old']);
    expect(events.map((event) => event.data)).toEqual([
      { id: 'old', title: 'Renamed' },
      { id: 'old', pinned: true, unread: true },
      { id: 'old', archived: true },
      { id: 'old', archived: false },
    ]);
    await expect(store.updateSession('old', { title: '   ' })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('deletes the repo, entry and location, and only a directory whose meta.json names the id', async () => {
    const { store, dir } = await fresh();
    await store.createSession({ id: 'gone' });
    await store.appendMessage('gone', { role: 'user', content: 'bye' });
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    expect(await store.deleteSession('gone')).toEqual({ id: 'gone' });
    expect(existsSync(join(dir, 'sessions', 'gone'))).toBe(false);
    expect(store.hasSession('gone')).toBe(false);
    const index = readRegistryOnDisk(join(dir, 'sessions'));
    expect(index['gone']).toBeUndefined();
    expect(events).toEqual([{ type: 'session_deleted', data: { id: 'gone' } }]);
    await expect(store.getSession('gone')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists with limit bounds and a cursor that walks every row once', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    for (let i = 0; i < 7; i++) {
      await store.createSession({ id: `s${i}` });
      clock.advance(1);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = store.listSessions({ limit: 3, cursor });
      seen.push(...page.rows.map((row) => row.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['s6', 's5', 's4', 's3', 's2', 's1', 's0']);
    expect(() => store.listSessions({ limit: 201 })).toThrow(InvalidInputError);
    expect(() => store.listSessions({ limit: 0 })).toThrow(InvalidInputError);
    expect(store.countSessions()).toBe(7);
  });

  it('with a cache of 2, five sessions are all read back intact', async () => {
    const { store } = await fresh({ cacheCap: 2 });
    for (let i = 0; i < 5; i++) {
      await store.createSession({ id: `c${i}` });
      const user = await store.appendMessage(`c${i}`, { role: 'user', content: `question ${i}` });
      await store.appendMessage(`c${i}`, { role: 'assistant', content: `answer ${i}`, parentId: user.id });
      await store.finalizeTurn(`c${i}`);
    }
    expect(store.internals.cacheSize).toBeLessThanOrEqual(2);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5; i++) {
        const branch = await store.getBranch(`c${i}`);
        expect(branch.map((message) => message.content).slice(0, 2)).toEqual([`question ${i}`, `answer ${i}`]);
        await store.appendMessage(`c${i}`, { role: 'user', content: `more ${i} ${round}` });
      }
    }
    for (let i = 0; i < 5; i++) expect((await store.getNodes(`c${i}`)).map((node) => node.seq)).toEqual([0, 1, 2, 3]);
  });

  it('reads its cache cap from OPENPROGRAM_SESSION_CACHE_CAP', async () => {
    const { dir, cleanup } = tempDir();
    process.env['OPENPROGRAM_SESSION_CACHE_CAP'] = '1';
    try {
      const store = await SessionStore.open({ stateDir: dir });
      await store.createSession({ id: 'a' });
      await store.createSession({ id: 'b' });
      await store.getBranch('a');
      await store.getBranch('b');
      expect(store.internals.cacheSize).toBe(1);
      await store.close();
    } finally {
      delete process.env['OPENPROGRAM_SESSION_CACHE_CAP'];
      cleanup();
    }
  });
});
