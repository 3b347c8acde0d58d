import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, PreconditionError } from '../errors.js';
import { agentTurn, git, openProjectStore as setup, storesClosedAfterEach } from '../testing/project-repos.js';

describe('undo_turn and redo_turn', () => {
  const stores = storesClosedAfterEach();

  it('undo restores the agent\'s edit, is recorded in the session, and redo re-applies it; refusals say why', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const { end } = await agentTurn(store, 's', projectDir, { 'README.md': 'agent rewrite\n' });
    expect(readFileSync(join(projectDir, 'README.md'), 'utf8')).toBe('agent rewrite\n');
    const undo = await store.undoTurn('s', 1);
    expect(undo.paths).toContain('README.md');
    expect(readFileSync(join(projectDir, 'README.md'), 'utf8')).toBe('hello\n');
    expect(git(projectDir, 'rev-parse', 'HEAD')).not.toBe(end.projectCommit);
    expect((await store.getNodes('s')).find((n) => n.id === undo.nodeId)?.name).toBe('turn/undo');
    await expect(store.undoTurn('s', 1)).rejects.toBeInstanceOf(PreconditionError);
    const redo = await store.redoTurn('s', 1);
    expect(readFileSync(join(projectDir, 'README.md'), 'utf8')).toBe('agent rewrite\n');
    expect((await store.getNodes('s')).find((n) => n.id === redo.nodeId)?.name).toBe('turn/redo');
    await expect(store.undoTurn('s', 7)).rejects.toBeInstanceOf(PreconditionError);
    await expect(store.undoTurn('s', 0)).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('words the move by what the turn did, and the timeline and the project list mark the undone commit', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 'w', projectId: project.id });
    const { end } = await agentTurn(store, 'w', projectDir, { 'hello.txt': 'new file\n', 'README.md': 'changed\n' });
    const sha = end.projectCommit!;
    expect((await store.listTurns('w')).commits[0]!.fileEdits).toBe('applied');
    expect((await store.projectCommits(project.id)).map((c) => [c.sha, c.undone])).toEqual([[sha, false]]);

    const undo = await store.undoTurn('w', 1);
    expect(undo.summary).toBe('Restored README.md. Removed hello.txt.');
    expect(undo.changes).toEqual([
      { path: 'README.md', change: 'modified' },
      { path: 'hello.txt', change: 'added' },
    ]);
    // git log forgets the commit; the timeline and the project list do not, and say it is undone.
    expect(git(projectDir, 'log', '--format=%H')).not.toContain(sha);
    expect((await store.listTurns('w')).commits[0]!.fileEdits).toBe('undone');
    const listed = await store.projectCommits(project.id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ sha, undone: true, sessionId: 'w', turn: 1 });
    expect(listed[0]!.message).toMatch(/turn 1/);
    expect((await store.getNodes('w')).find((n) => n.id === undo.nodeId)?.content).toContain('Removed hello.txt.');

    const redo = await store.redoTurn('w', 1);
    expect(redo.summary).toBe('Reapplied the changes to README.md. Recreated hello.txt.');
    expect((await store.listTurns('w')).commits[0]!.fileEdits).toBe('applied');
    expect((await store.projectCommits(project.id)).map((c) => [c.sha, c.undone])).toEqual([[sha, false]]);
  });
});
