import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { manualClock, tempStoresPerTest } from '../testing/temp-store.js';

describe('list_sessions', () => {
  const fresh = tempStoresPerTest();

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
});
