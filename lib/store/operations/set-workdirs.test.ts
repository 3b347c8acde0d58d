import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForbiddenPathError } from '../errors.js';
import { openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('set_workdirs', () => {
  const stores = storesClosedAfterEach();

  it('extra working directories change any time, inside the allowed roots only', async () => {
    const { store, workspace } = await setup();
    stores.push(store);
    await store.createSession({ id: 's' });
    await store.appendMessage('s', { role: 'user', content: 'x' });
    await store.finalizeTurn('s');
    const docs = join(workspace, 'app', 'src');
    await store.setWorkdirs('s', [docs]);
    expect((await store.getSession('s')).workdirs).toEqual([docs]);
    await expect(store.setWorkdirs('s', ['/etc'])).rejects.toBeInstanceOf(ForbiddenPathError);
    await store.setWorkdirs('s', []);
    expect((await store.getSession('s')).workdirs).toEqual([]);
  });
});
