import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PreconditionError } from '../errors.js';
import { openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('relocate_project', () => {
  const stores = storesClosedAfterEach();

  it('a moved folder is reported missing, turns are refused, and relocate repairs it keeping the id', async () => {
    const { store, projectDir, project, workspace } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const first = await store.appendMessage('s', { role: 'user', content: 'hi' });
    await store.finalizeTurn('s');
    const moved = join(workspace, 'app-renamed');
    renameSync(projectDir, moved);
    expect((await store.listProjects()).find((p) => p.id === project.id)!.pathMissing).toBe(true);
    await expect(store.beginTurn('s')).rejects.toBeInstanceOf(PreconditionError);
    expect((await store.getSession('s')).status).toBe('idle');

    const before = await store.getSession('s');
    const result = await store.relocateProject(project.id, moved, 's');
    expect(result).toMatchObject({ oldPath: projectDir, path: moved });
    const after = await store.getSession('s');
    expect(after.headId).toBe(first.id);
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.projectId).toBe(project.id);
    const record = (await store.getNodes('s')).find((n) => n.id === result.nodeId)!;
    expect(record).toMatchObject({ role: 'tool', name: 'project/relocate', content: `${projectDir} → ${moved}`, parentId: null, calledBy: null });
    expect(record.metadata).toMatchObject({ display: 'runtime', project_id: project.id, old_path: projectDir, new_path: moved });
    expect(result.nodeId).toMatch(/^reloc_[0-9a-f]{10}$/);
    expect((await store.beginTurn('s')).projectClean).toBe(true);
    await expect(store.relocateProject('default', moved)).rejects.toThrow();
  });
});
