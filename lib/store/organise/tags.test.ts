import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { SessionStore } from '../session-store.js';
import { tempStoresPerTest } from '../testing/temp-store.js';
import { normaliseTags } from './tags.js';

describe('tags and state (DESIGN §16)', () => {
  const fresh = tempStoresPerTest();

  async function threeTagged() {
    const temp = await fresh();
    for (const id of ['a', 'b', 'c', 'd']) await temp.store.createSession({ id });
    await temp.store.updateSession('a', { tags: ['Bug', 'ui'] });
    await temp.store.updateSession('b', { tags: ['bug'] });
    await temp.store.updateSession('c', { tags: ['ui'], state: 'review' });
    return temp;
  }
  const ids = (store: SessionStore, filter: Parameters<SessionStore['listSessions']>[0]) =>
    store.listSessions(filter).rows.map((row) => row.id).sort();

  it('filters all of, any of, untagged and state, and by tag: and state: words in the query', async () => {
    const { store } = await threeTagged();
    expect(ids(store, { tags: ['bug', 'ui'] })).toEqual(['a']);
    expect(ids(store, { tags: ['bug', 'ui'], tagMode: 'any' })).toEqual(['a', 'b', 'c']);
    expect(ids(store, { untagged: true })).toEqual(['d']);
    expect(ids(store, { state: 'review' })).toEqual(['c']);
    expect(ids(store, { state: 'none' })).toEqual(['a', 'b', 'd']);
    expect(ids(store, { q: 'tag:BUG' })).toEqual(['a', 'b']);
    expect(ids(store, { q: 'tag:bug tag:ui' })).toEqual(['a']);
    expect(ids(store, { q: 'state:needs-review' })).toEqual(['c']);
    expect(store.countSessions({ tags: ['ui'] })).toBe(2);
  });

  it('stores tags lower-cased, once and sorted; a row and session_updated carry tags and state; an equal list changes nothing', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 's' });
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    const row = await store.updateSession('s', { tags: ['Zeta', 'alpha', 'ALPHA'], state: 'active' });
    expect(row).toMatchObject({ tags: ['alpha', 'zeta'], state: 'active' });
    await store.updateSession('s', { tags: ['zeta', 'alpha'] });
    await store.updateSession('s', { state: null });
    expect(events.map((event) => event.data)).toEqual([
      { id: 's', tags: ['alpha', 'zeta'], state: 'active' },
      { id: 's', state: null },
    ]);
  });

  it('refuses bad names and states and writes nothing', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 's' });
    for (const tags of [[''], ['two words'], ['a,b'], ['x'.repeat(41)], Array.from({ length: 33 }, (_, i) => `t${i}`)]) {
      await expect(store.updateSession('s', { tags })).rejects.toBeInstanceOf(InvalidInputError);
    }
    await expect(store.updateSession('s', { state: 'later' })).rejects.toBeInstanceOf(InvalidInputError);
    expect(() => store.listSessions({ q: 'state:soon' })).toThrow(InvalidInputError);
    expect((await store.getSession('s'))).toMatchObject({ tags: [], state: null });
  });

  it('edits keep other tags; the list counts tags of sessions not archived, colours kept in tags.json', async () => {
    const { store } = await threeTagged();
    await store.editTags('a', ['new'], ['bug']);
    expect((await store.getSession('a')).tags).toEqual(['new', 'ui']);
    await store.setArchived('c', true);
    store.setTagColour('ui', 'green');
    expect(store.listTags()).toEqual([
      { name: 'bug', colour: expect.any(String), sessions: 1 },
      { name: 'new', colour: expect.any(String), sessions: 1 },
      { name: 'ui', colour: 'green', sessions: 1 },
    ]);
    expect(() => store.setTagColour('ui', 'url(x)' as 'green')).toThrow(InvalidInputError);
  });

  it('survives a restart, and a rebuild of the registry from meta.json', async () => {
    const { store, dir } = await threeTagged();
    store.setTagColour('bug', 'red');
    await store.close();
    const reopened = await SessionStore.open({ stateDir: dir, debounceMs: 50 });
    expect(ids(reopened, { tags: ['ui'] })).toEqual(['a', 'c']);
    expect(reopened.listTags().find((tag) => tag.name === 'bug')?.colour).toBe('red');
    await reopened.close();
    rmSync(`${dir}/sessions/index.json`, { force: true });
    rmSync(`${dir}/sessions/.index-log`, { force: true, recursive: true });
    const rebuilt = await SessionStore.open({ stateDir: dir, debounceMs: 50 });
    expect((await rebuilt.getSession('c'))).toMatchObject({ tags: ['ui'], state: 'review' });
    expect(ids(rebuilt, { untagged: true })).toEqual(['d']);
    await rebuilt.close();
  });

  it('normalises a list', () => {
    expect(normaliseTags([' B ', 'a', 'b'])).toEqual(['a', 'b']);
  });
});
