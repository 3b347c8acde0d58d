import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { manualClock, tempStoresPerTest } from '../testing/temp-store.js';

describe('update_session', () => {
  const fresh = tempStoresPerTest();

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
});
