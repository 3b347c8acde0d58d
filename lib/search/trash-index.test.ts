import { describe, expect, it } from 'vitest';
import { indexedStoresPerTest } from './testing/indexed-store.js';

const indexedStore = indexedStoresPerTest();

describe('the trash in the search index (DESIGN §17)', () => {
  it('drops a trashed session’s hits and finds them again once it is restored', async () => {
    const { store, index } = await indexedStore();
    const { row } = await store.createSession({ title: 'Retained' });
    await store.beginTurn(row.id);
    const asked = await store.appendMessage(row.id, { role: 'user', content: 'the quokka migration plan' });
    await store.finalizeTurn(row.id);
    const settle = async () => {
      await index.caughtUp();
      await index.settled(5_000);
    };
    await settle();
    expect(index.search('quokka').hits).toMatchObject([{ sessionId: row.id, messageId: asked.id }]);
    await store.trash.moveToTrash(row.id);
    await settle();
    expect(index.search('quokka').hits).toEqual([]);
    await store.trash.restore(row.id);
    await settle();
    expect(index.search('quokka').hits).toMatchObject([{ sessionId: row.id, messageId: asked.id }]);
  });
});
