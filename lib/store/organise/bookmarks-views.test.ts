import { linkSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { SessionStore } from '../session-store.js';
import { tempStoresPerTest } from '../testing/temp-store.js';
import { BOOKMARK_SNIPPET_CHARS, BOOKMARKS_FILE } from './bookmarks.js';
import { UserBookmarks } from './user-bookmarks.js';
import { UserViews } from './user-views.js';
import { VIEWS_FILE } from './saved-views.js';

/** A clock the test moves, in seconds as the store keeps time. */
function clock(start = 1_800_000_000) {
  let now = start;
  return { now: () => now, tick: () => (now += 1) };
}

describe('bookmarks (DESIGN §16)', () => {
  const fresh = tempStoresPerTest();

  async function twoSessions() {
    const temp = await fresh();
    const { store } = temp;
    await store.createSession({ id: 'a', title: 'Alpha' });
    await store.createSession({ id: 'b', title: 'Beta' });
    const a1 = await store.appendMessage('a', { role: 'user', content: 'first question\n\nwith   spaces' });
    const b1 = await store.appendMessage('b', { role: 'assistant', content: 'x'.repeat(500) });
    const time = clock();
    return { ...temp, a1: a1.id, b1: b1.id, time, bookmarks: new UserBookmarks(store, time.now) };
  }

  it('adds, lists newest first with title and a one-line snippet, and removes; each change is one bookmark_changed', async () => {
    const { store, a1, b1, time, bookmarks } = await twoSessions();
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    await bookmarks.add('a', a1);
    time.tick();
    const added = await bookmarks.add('b', b1);
    expect(added).toMatchObject({ sessionId: 'b', messageId: b1, role: 'assistant', title: 'Beta', gone: false, createdAt: 1_800_000_001_000 });
    expect([...added.snippet]).toHaveLength(BOOKMARK_SNIPPET_CHARS);
    // the same bookmark again changes nothing and says nothing
    await bookmarks.add('a', a1);
    expect(bookmarks.list().map((each) => [each.sessionId, each.snippet.slice(0, 30)])).toEqual([
      ['b', 'x'.repeat(30)],
      ['a', 'first question with spaces'],
    ]);
    expect(bookmarks.list('a').map((each) => each.messageId)).toEqual([a1]);
    expect(bookmarks.remove('a', a1)).toEqual({ removed: true });
    expect(bookmarks.remove('a', a1)).toEqual({ removed: false });
    expect(events.filter((event) => event.type === 'bookmark_changed').map((event) => event.data)).toEqual([
      { sessionId: 'a', messageId: a1, bookmarked: true },
      { sessionId: 'b', messageId: b1, bookmarked: true },
      { sessionId: 'a', messageId: a1, bookmarked: false },
    ]);
  });

  it('refuses a bad id, an unknown session or message, and writes nothing', async () => {
    const { dir, a1, bookmarks } = await twoSessions();
    await expect(bookmarks.add('../a', a1)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(bookmarks.add('a', 'no/such')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(bookmarks.add('nope', a1)).rejects.toBeInstanceOf(NotFoundError);
    await expect(bookmarks.add('b', a1)).rejects.toBeInstanceOf(NotFoundError);
    expect(readdirSync(dir)).not.toContain(BOOKMARKS_FILE);
  });

  it('is per user: another store (another user) sees none; survives a restart', async () => {
    const { store, dir, a1, bookmarks } = await twoSessions();
    await bookmarks.add('a', a1);
    const other = await fresh();
    expect(new UserBookmarks(other.store).list()).toEqual([]);
    await store.close();
    const reopened = await SessionStore.open({ stateDir: dir, debounceMs: 50 });
    try {
      expect(new UserBookmarks(reopened).list().map((each) => each.messageId)).toEqual([a1]);
    } finally {
      await reopened.close();
    }
  });

  it('writes the file atomically (a new file renamed over the old, 0600): a reader of the old one never sees it torn', async () => {
    const { dir, a1, b1, bookmarks } = await twoSessions();
    await bookmarks.add('a', a1);
    const path = join(dir, BOOKMARKS_FILE);
    const before = readFileSync(path, 'utf8');
    linkSync(path, join(dir, 'held-by-a-reader.json'));
    await bookmarks.add('b', b1);
    // in-place writing would have changed the held copy too
    expect(readFileSync(join(dir, 'held-by-a-reader.json'), 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(path, 'utf8')).bookmarks).toHaveLength(2);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('drops a deleted session’s bookmarks; one whose session went while the store was closed is listed as gone, without its words', async () => {
    const { store, dir, a1, b1, bookmarks } = await twoSessions();
    await bookmarks.add('a', a1);
    await bookmarks.add('b', b1);
    await store.deleteSession('a');
    expect(bookmarks.list().map((each) => each.sessionId)).toEqual(['b']);
    // a file that names a session this store does not have (deleted elsewhere, or by hand)
    const path = join(dir, BOOKMARKS_FILE);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    doc.bookmarks.push({ sessionId: 'gone', messageId: 'm1', role: 'user', snippet: 'secret words', createdAt: 1 }, { nonsense: true });
    writeFileSync(path, JSON.stringify(doc));
    const fresh2 = new UserBookmarks(store);
    expect(fresh2.list().find((each) => each.sessionId === 'gone')).toMatchObject({ gone: true, snippet: '', title: null });
    expect(fresh2.list()).toHaveLength(2);
  });
});

describe('saved views (DESIGN §16)', () => {
  const fresh = tempStoresPerTest();

  async function tagged() {
    const temp = await fresh();
    for (const id of ['a', 'b', 'c', 'd']) await temp.store.createSession({ id });
    await temp.store.updateSession('a', { tags: ['bug'] });
    await temp.store.updateSession('b', { tags: ['ui'], state: 'review' });
    return { ...temp, views: new UserViews(temp.store) };
  }

  it('saves a filter under a name, lists by name with the live count, deletes', async () => {
    const { store, views } = await tagged();
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    expect(views.save('  Triage ', { tags: ['BUG', 'ui'], tagMode: 'any', scope: 'active', q: '' })).toMatchObject({
      name: 'Triage',
      filter: { tags: ['bug', 'ui'], tagMode: 'any' },
      sessions: 2,
    });
    views.save('Review', { state: 'review' });
    await store.updateSession('c', { tags: ['ui'] });
    expect(views.list().map((view) => [view.name, view.sessions])).toEqual([
      ['Review', 1],
      ['Triage', 3],
    ]);
    expect(views.delete('triage')).toEqual({ name: 'Triage' });
    expect(views.list().map((view) => view.name)).toEqual(['Review']);
    expect(events.filter((event) => event.type === 'view_changed').map((event) => event.data)).toEqual([
      { name: 'Triage', saved: true },
      { name: 'Review', saved: true },
      { name: 'Triage', saved: false },
    ]);
  });

  it('refuses a bad or taken name and a bad filter with a clear error, and writes nothing', async () => {
    const { dir, views } = await tagged();
    expect(() => views.save('', {})).toThrow(/must not be empty/);
    expect(() => views.save('x'.repeat(61), {})).toThrow(/at most 60 characters/);
    expect(() => views.save('Bad', { tags: ['two words'] })).toThrow(InvalidInputError);
    expect(() => views.save('Bad', { state: 'later' })).toThrow(InvalidInputError);
    expect(() => views.save('Bad', { scope: 'everything' })).toThrow(InvalidInputError);
    expect(() => views.save('Bad', { projectId: '../x' })).toThrow(InvalidInputError);
    expect(() => views.save('Bad', 'tag:bug')).toThrow(InvalidInputError);
    expect(readdirSync(dir)).not.toContain(VIEWS_FILE);
    views.save('x'.repeat(60), {});
    expect(() => views.save('X'.repeat(60), {})).toThrow(ConflictError);
    expect(() => views.delete('missing')).toThrow(NotFoundError);
    expect(views.list()).toHaveLength(1);
  });

  it('is per user and survives a restart', async () => {
    const { store, dir, views } = await tagged();
    views.save('Bugs', { tags: ['bug'] });
    const other = await fresh();
    expect(new UserViews(other.store).list()).toEqual([]);
    await store.close();
    const reopened = await SessionStore.open({ stateDir: dir, debounceMs: 50 });
    try {
      expect(new UserViews(reopened).list()).toMatchObject([{ name: 'Bugs', sessions: 1 }]);
    } finally {
      await reopened.close();
    }
  });
});
