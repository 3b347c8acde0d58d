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
});
