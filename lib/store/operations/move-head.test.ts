import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { tempStoresPerTest } from '../testing/temp-store.js';

describe('retry and set_head', () => {
  const open = tempStoresPerTest();
  async function fresh(options: Parameters<typeof open>[0] = {}) {
    const temp = await open(options);
    await temp.store.createSession({ id: 's' });
    return temp;
  }

  it('retry: sibling reply, head moves to it, git branch retry-<id> at the commit holding the retried reply', async () => {
    const { store, dir } = await fresh();
    await store.appendMessage('s', { role: 'user', content: 'colour?' });
    const blue = await store.appendMessage('s', { role: 'assistant', content: 'Blue' });
    const turn = await store.finalizeTurn('s');
    const { parentId } = await store.retry('s', blue.id);
    const green = await store.appendMessage('s', { role: 'assistant', content: 'Green', parentId: parentId! });
    expect((await store.getSession('s')).headId).toBe(green.id);
    const branch = await store.getBranch('s');
    expect(branch.map((m) => m.content)).toEqual(['colour?', 'Green']);
    expect(branch[1]!.siblings).toEqual([blue.id, green.id]);
    const { default: git } = await import('isomorphic-git');
    const fs = await import('node:fs');
    const repo = join(dir, 'sessions', 's');
    expect(await git.resolveRef({ fs, dir: repo, ref: `retry-${blue.id}` })).toBe(turn.sessionCommit);
    const second = await store.finalizeTurn('s');
    expect((await store.listCommits('s')).commits[0]!.message).toBe('turn: retry');
    expect(second.turn).toBe(2);
    await expect(store.retry('s', branch[0]!.id)).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('a retry of a reply not yet committed records the branch at the commit that will hold it', async () => {
    const { store, dir } = await fresh();
    await store.appendMessage('s', { role: 'user', content: 'q' });
    const reply = await store.appendMessage('s', { role: 'assistant', content: 'draft' });
    await store.retry('s', reply.id);
    await store.appendMessage('s', { role: 'assistant', content: 'better' });
    const turn = await store.finalizeTurn('s');
    const { default: git } = await import('isomorphic-git');
    const fs = await import('node:fs');
    expect(await git.resolveRef({ fs, dir: join(dir, 'sessions', 's'), ref: `retry-${reply.id}` })).toBe(turn.sessionCommit);
  });
});
