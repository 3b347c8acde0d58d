import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { ConflictError } from '../errors.js';
import { openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('set_session_project (bind a session to a project)', () => {
  const stores = storesClosedAfterEach();

  it('binds a draft (its repo moves), freezes after the first turn, accepts the same project again', async () => {
    const { store, stateDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 'draft' });
    const row = await store.setSessionProject('draft', project.id);
    expect(row.project).toBe('App');
    const moved = join(stateDir, 'sessions', 'projects', project.id, 'draft');
    expect(existsSync(join(moved, 'meta.json'))).toBe(true);
    expect(existsSync(join(stateDir, 'sessions', 'draft'))).toBe(false);
    expect(JSON.parse(readFileSync(join(stateDir, 'sessions', 'locations.json'), 'utf8'))).toEqual({ draft: moved });
    expect((await store.getSession('draft')).projectId).toBe(project.id);
    expect((await store.listProjects()).find((p) => p.id === project.id)!.sessionCount).toBe(1);

    await store.appendMessage('draft', { role: 'user', content: 'hi' });
    await store.finalizeTurn('draft');
    await expect(store.setSessionProject('draft', 'default')).rejects.toThrow(new ConflictError('project is frozen after the first turn'));
    expect((await store.setSessionProject('draft', project.id)).project).toBe('App');

    // A restart finds the session where it moved.
    await store.close();
    stores.pop();
    const reopened = await SessionStore.open({ stateDir, workspaceRoot: join(stateDir, '..') });
    stores.push(reopened);
    expect((await reopened.getBranch('draft')).map((m) => m.content)).toEqual(['hi']);
  });
});
