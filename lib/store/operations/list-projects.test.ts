import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-store.js';
import { openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('projects from the UI', () => {
  const stores = storesClosedAfterEach();

  it('counts each project\'s sessions from the registry, Home included', async () => {
    const { store, project } = await setup();
    stores.push(store);
    for (let i = 0; i < 3; i++) await store.createSession({ id: `home${i}` });
    await store.createSession({ id: 'bound', projectId: project.id });
    await store.setArchived('home2', true);
    const counts = Object.fromEntries((await store.listProjects()).map((p) => [p.name, p.sessionCount]));
    expect(counts).toEqual({ Home: 3, App: 1 });
    await store.deleteSession('home0');
    expect((await store.listProjects())[0]).toMatchObject({ isDefault: true, sessionCount: 2 });
  });

  it('inspects a folder before adding it: a repository, a plain folder, a blocked git init, a missing one, Home', async () => {
    const { store, workspace, projectDir, project } = await setup();
    stores.push(store);
    expect(await store.inspectProject(projectDir)).toEqual({ path: projectDir, exists: true, isRepository: true, projectId: project.id, initBlockers: [] });
    mkdirSync(join(workspace, 'notes'));
    writeFileSync(join(workspace, 'notes', 'a.md'), 'a\n');
    expect(await store.inspectProject('notes')).toEqual({ path: join(workspace, 'notes'), exists: true, isRepository: false, projectId: null, initBlockers: [] });
    mkdirSync(join(workspace, 'web', 'node_modules'), { recursive: true });
    expect((await store.inspectProject('web')).initBlockers).toEqual(['node_modules']);
    expect(await store.inspectProject('later')).toMatchObject({ exists: false, isRepository: false, projectId: null });
    expect((await store.inspectProject(workspace)).projectId).toBe('default');
    await expect(store.inspectProject('/etc')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('takes roots an admin adds from the next call on, and drops them again', async () => {
    const { store } = await setup();
    stores.push(store);
    const extra = tempDir('em-root-');
    mkdirSync(join(extra.dir, 'site'));
    await expect(store.createProject(join(extra.dir, 'site'))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    store.setExtraRoots([extra.dir]);
    expect(store.allowedRoots).toHaveLength(2);
    const created = await store.createProject(join(extra.dir, 'site'), 'Site');
    expect(created).toMatchObject({ name: 'Site', created: true });
    store.setExtraRoots([]);
    await expect(store.inspectProject(join(extra.dir, 'site'))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    extra.cleanup();
  });
});
