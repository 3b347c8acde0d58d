import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { tempStoresPerTest } from '../testing/temp-store.js';

describe('message.nodes paging', () => {
  const fresh = tempStoresPerTest();

  it('pages every node by seq, 200 by default, and walks them all exactly once', async () => {
    const temp = await fresh();
    const { store } = temp;
    await store.createSession({ id: 's' });
    for (let i = 0; i < 205; i++) await store.appendMessage('s', { role: i % 2 ? 'assistant' : 'user', content: `m${i}` });

    const first = await store.listNodes('s');
    expect(first.messages).toHaveLength(200);
    expect(first.messages[0]!.seq).toBe(0);
    const rest = await store.listNodes('s', { cursor: first.nextCursor });
    expect(rest.messages.map((m) => m.seq)).toEqual([200, 201, 202, 203, 204]);
    expect(rest.nextCursor).toBeNull();

    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof store.listNodes>> = await store.listNodes('s', { limit: 7, cursor });
      seen.push(...page.messages.map((m) => m.seq));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...Array(205).keys()]);
  });

  it('refuses limits out of 1–200 and cursors it did not make', async () => {
    const temp = await fresh();
    await temp.store.createSession({ id: 's' });
    for (const limit of [0, 201, 1.5]) await expect(temp.store.listNodes('s', { limit })).rejects.toBeInstanceOf(InvalidInputError);
    const bad = ['junk', Buffer.from(JSON.stringify(['seq', -5])).toString('base64url'), Buffer.from('[1e308]').toString('base64url')];
    for (const cursor of bad) await expect(temp.store.listNodes('s', { cursor })).rejects.toThrow(/invalid cursor/);
  });
});
