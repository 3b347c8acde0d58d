import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../testing/temp-store.js';

describe('provenance read layer', () => {
  const fresh = tempStoresPerTest();

  it('gives a node\'s project, session, commit and times; later nodes by seq; a deleted session reads as absent', async () => {
    const temp = await fresh();
    const { store } = temp;
    await store.createSession({ id: 's' });
    const u = await store.appendMessage('s', { role: 'user', content: 'one' });
    await store.appendMessage('s', { role: 'assistant', content: 'two' });
    const first = await store.finalizeTurn('s');
    const u2 = await store.appendMessage('s', { role: 'user', content: 'three' });
    await store.finalizeTurn('s');
    const pending = await store.appendMessage('s', { role: 'assistant', content: 'four' });

    const provenance = await store.nodeProvenance('s', u.id);
    expect(provenance).toMatchObject({ projectId: 'default', sessionId: 's', nodeIds: [u.id], commit: first.sessionCommit, eventTime: u.createdAt });
    expect(provenance!.ingestionTime).toBeGreaterThan(0);
    expect((await store.nodeProvenance('s', pending.id))!.commit).toBeNull();
    expect((await store.nodesAfter('s', u.seq)).map((m) => m.id)).toEqual([expect.any(String), u2.id, pending.id]);
    expect((await store.sessionCommits('s')).map((c) => c.turn)).toEqual([2, 1, 0]);

    await store.deleteSession('s');
    expect(await store.nodeProvenance('s', u.id)).toBeNull();
    expect(await store.nodesAfter('s', 0)).toEqual([]);
    expect(await store.sessionCommits('s')).toEqual([]);
    expect(await store.nodeProvenance('../etc', u.id)).toBeNull();
  });
});
