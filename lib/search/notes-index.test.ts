import { describe, expect, it } from 'vitest';
import { indexedStoresPerTest } from './testing/indexed-store.js';

const indexedStore = indexedStoresPerTest();

describe('notes in the search index (DESIGN §16)', () => {
  it('finds a note’s words at its message, follows an edit, forgets a deleted note', async () => {
    const { store, index } = await indexedStore();
    const { row } = await store.createSession({ title: 'Noted' });
    await store.beginTurn(row.id);
    const asked = await store.appendMessage(row.id, { role: 'user', content: 'plain question' });
    await store.finalizeTurn(row.id);
    await store.setNote(row.id, { kind: 'message', messageId: asked.id }, 'remember the axolotl migration');
    await index.caughtUp();
    await index.settled(5_000);
    expect(index.search('axolotl').hits).toMatchObject([{ sessionId: row.id, messageId: asked.id, kind: 'note' }]);
    await store.setNote(row.id, { kind: 'message', messageId: asked.id }, 'remember the pangolin instead');
    await index.caughtUp();
    await index.settled(5_000);
    expect(index.search('axolotl').hits).toEqual([]);
    expect(index.search('pangolin').hits).toHaveLength(1);
    await store.setNote(row.id, { kind: 'message', messageId: asked.id }, null);
    await index.caughtUp();
    await index.settled(5_000);
    expect(index.search('pangolin').hits).toEqual([]);
  });
});
