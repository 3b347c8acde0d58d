import { describe, expect, it } from 'vitest';
import { bookmarksOf } from '../store/index.js';
import { tempStoresPerTest } from '../store/testing/temp-store.js';
import { sessionJson } from './session-json.js';
import { collect } from './testing/session-fixture.js';

describe('bookmarks in the JSON export (DESIGN §16)', () => {
  const fresh = tempStoresPerTest();

  it('a session’s JSON lists the user’s bookmarks of its messages, and none of another session’s', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 'a' });
    await store.createSession({ id: 'b' });
    const kept = await store.appendMessage('a', { role: 'user', content: 'keep this' });
    const other = await store.appendMessage('b', { role: 'user', content: 'elsewhere' });
    await bookmarksOf(store).add('a', kept.id);
    await bookmarksOf(store).add('b', other.id);
    const doc = JSON.parse((await collect(sessionJson(store, 'a', 1))).toString('utf8')) as { bookmarks: Array<{ messageId: string; createdAt: number }> };
    expect(doc.bookmarks).toEqual([{ messageId: kept.id, createdAt: expect.any(Number) }]);
  });
});
