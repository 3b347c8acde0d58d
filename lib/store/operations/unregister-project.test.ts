import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { agentTurn, cleanupTempDirs, git, openProjectStore as setup } from '../testing/project-repos.js';

describe('unregister_project', () => {
  const stores: SessionStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    cleanupTempDirs();
  });

  it('unregistering keeps the project history and leaves its sessions readable with their project_id', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    await agentTurn(store, 's', projectDir, { 'a.txt': 'a\n' });
    const log = git(projectDir, 'log', '--oneline');
    await store.unregisterProject(project.id);
    expect((await store.listProjects()).map((p) => p.id)).not.toContain(project.id);
    expect(git(projectDir, 'log', '--oneline')).toBe(log);
    const row = await store.getSession('s');
    expect(row.projectId).toBe(project.id);
    expect((await store.getBranch('s')).length).toBe(2);
  });
});
