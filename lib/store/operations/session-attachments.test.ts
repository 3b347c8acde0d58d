import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('session attachments', () => {
  const stores = storesClosedAfterEach();

  it('attachments land in the session repo, are committed with the turn, and escapes are refused', async () => {
    const { store, stateDir } = await setup();
    stores.push(store);
    await store.createSession({ id: 's' });
    const saved = await store.saveAttachment('s', { name: '../../evil name.txt', data: Buffer.from('hello') });
    expect(saved.path.startsWith(join(stateDir, 'sessions', 's', 'workdir', 'attachments'))).toBe(true);
    expect((await store.resolveAttachment('s', saved.id)).size).toBe(5);
    await expect(store.resolveAttachment('s', '../meta.json')).rejects.toThrow();
    await store.appendMessage('s', { role: 'user', content: `[attachment: ${saved.id}]` });
    await store.finalizeTurn('s');
    expect(git(join(stateDir, 'sessions', 's'), 'ls-tree', '-r', '--name-only', 'HEAD')).toContain(`workdir/attachments/${saved.id}`);
  });
});
