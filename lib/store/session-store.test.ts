import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from './session-store.js';
import { InvalidInputError, NotFoundError } from './errors.js';
import { tempDir, tempStoresPerTest } from './testing/temp-store.js';

describe('SessionStore: ids, unknown sessions and the session cache', () => {
  const fresh = tempStoresPerTest();

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
