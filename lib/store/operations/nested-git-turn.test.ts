import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTurn, makeRepo, writeFiles, openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('a turn that puts git metadata into the project', () => {
  const stores = storesClosedAfterEach();

  it('is named on its timeline entry: a repository the agent made, and a .gitmodules', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    // An agent with a shell of its own runs `git init` there; its writes are not known to the turn.
    await store.beginTurn('s');
    await store.appendMessage('s', { role: 'user', content: 'set up the hooks' });
    mkdirSync(join(projectDir, 'tools', 'hook'), { recursive: true });
    makeRepo({ 'run.sh': 'echo\n' }, join(projectDir, 'tools', 'hook'));
    writeFiles(projectDir, { '.gitmodules': '[submodule "evil"]\n\tpath = x\n\turl = ./x\n' });
    await store.appendMessage('s', { role: 'assistant', content: 'done' });
    await store.finalizeTurn('s', { model: 'test-model' });
    await agentTurn(store, 's', projectDir, { 'src/ok.ts': 'export {}\n' });

    const timeline = await store.listTurns('s');
    const [second, first] = timeline.commits;
    expect(first!.nestedGit).toEqual(['.gitmodules', 'tools/hook/.git']);
    expect(second!.nestedGit).toEqual([]);
    expect(first!.message).toBe('turn: set up the hooks');
  });

  it('is named when the agent\'s known writes go into a nested repository even without a project commit', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.setProjectAutoCommit(project.id, false);
    await store.createSession({ id: 's', projectId: project.id });
    mkdirSync(join(projectDir, 'pkg'));
    makeRepo({ 'a.txt': 'a\n' }, join(projectDir, 'pkg'));
    const { end } = await agentTurn(store, 's', projectDir, { 'pkg/b.txt': 'b\n' });
    expect(end.projectCommitSkipped?.reason).toBe('disabled');
    expect((await store.listTurns('s')).commits[0]!.nestedGit).toEqual(['pkg/.git']);
  });

  it('is named when an agent that names no writes leaves a repository in a tree that was not clean', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    writeFiles(projectDir, { 'scratch.txt': 'the user\'s own uncommitted work\n' });
    await store.beginTurn('s');
    await store.appendMessage('s', { role: 'user', content: 'vendor a library' });
    mkdirSync(join(projectDir, 'vendor'));
    makeRepo({ 'lib.js': 'x\n' }, join(projectDir, 'vendor'));
    await store.appendMessage('s', { role: 'assistant', content: 'vendored' });
    const end = await store.finalizeTurn('s', { model: 'test-model' });
    expect(end.projectCommitSkipped?.reason).toBe('dirty_tree');
    expect((await store.listTurns('s')).commits[0]!.nestedGit).toEqual(['vendor/.git']);
  });
});
