import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { NotFoundError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { openTempStore } from '../testing/temp-store.js';
import { readRegistryOnDisk } from '../testing/registry-on-disk.js';
import { agentTurn, cleanupTempDirs, openProjectStore as setup } from '../testing/project-repos.js';

describe('delete_session', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function fresh(options: Parameters<typeof openTempStore>[0] = {}) {
    const temp = await openTempStore(options);
    cleanups.push(temp.cleanup);
    return temp;
  }

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
  const stores: SessionStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    cleanupTempDirs();
  });

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
