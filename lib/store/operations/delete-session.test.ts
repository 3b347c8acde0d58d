import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { tempStoresPerTest } from '../testing/temp-store.js';
import { readRegistryOnDisk } from '../testing/registry-on-disk.js';
import { agentTurn, openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('delete_session', () => {
  const fresh = tempStoresPerTest();

  it('deletes the repo, entry and location, and only a directory whose meta.json names the id', async () => {
    const { store, dir } = await fresh();
    await store.createSession({ id: 'gone' });
    await store.appendMessage('gone', { role: 'user', content: 'bye' });
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    expect(await store.deleteSession('gone')).toEqual({ id: 'gone' });
    expect(existsSync(join(dir, 'sessions', 'gone'))).toBe(false);
    expect(store.hasSession('gone')).toBe(false);
    const index = readRegistryOnDisk(join(dir, 'sessions'));
    expect(index['gone']).toBeUndefined();
    expect(events).toEqual([{ type: 'session_deleted', data: { id: 'gone' } }]);
    await expect(store.getSession('gone')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('delete_session in a project', () => {
  const stores = storesClosedAfterEach();

  it('deleting a session removes its project binding and recovery files', async () => {
    const { store, stateDir, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    await agentTurn(store, 's', projectDir, { 'a.txt': 'a\n' });
    expect(existsSync(join(stateDir, 'sessions', '.file-recovery', 's'))).toBe(true);
    await store.deleteSession('s');
    expect(existsSync(join(stateDir, 'sessions', '.file-recovery', 's'))).toBe(false);
    expect(existsSync(join(stateDir, 'sessions', 'projects', project.id, 's'))).toBe(false);
    expect((await store.listProjects()).find((p) => p.id === project.id)!.sessionCount).toBe(0);
  });
});
