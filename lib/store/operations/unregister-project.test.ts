import { describe, expect, it } from 'vitest';
import { agentTurn, git, openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('unregister_project', () => {
  const stores = storesClosedAfterEach();

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
