import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { ConflictError, ForbiddenPathError, InvalidInputError, PreconditionError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { cleanupTempDirs, git, makeRepo, status, tempDir, writeFiles } from '../testing/project-repos.js';

/** A store whose workspace holds a user's git project. */
async function setup() {
  const stateDir = tempDir('em-state-');
  const workspace = tempDir('em-ws-');
  mkdirSync(join(workspace, 'app'));
  const projectDir = makeRepo({ 'README.md': 'hello\n', 'src/app.ts': 'export {}\n' }, join(workspace, 'app'));
  const store = await SessionStore.open({ stateDir, workspaceRoot: workspace });
  const project = await store.createProject(projectDir, 'App');
  return { store, stateDir, workspace, projectDir, project };
}

async function agentTurn(store: SessionStore, sessionId: string, projectDir: string, files: Record<string, string>, known = true) {
  const begin = await store.beginTurn(sessionId);
  await store.appendMessage(sessionId, { role: 'user', content: `please write ${Object.keys(files).join(', ')}` });
  for (const path of Object.keys(files)) await store.snapshotBeforeEdit(sessionId, path);
  writeFiles(projectDir, files);
  await store.appendMessage(sessionId, { role: 'assistant', content: 'done' });
  const end = await store.finalizeTurn(sessionId, { writtenPaths: known ? Object.keys(files) : undefined, model: 'test-model' });
  return { begin, end };
}

describe('sessions in projects', () => {
  const stores: SessionStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    cleanupTempDirs();
  });

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

  it('a clean tree gets one agent commit with the identity, message and trailers; the timeline links it', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const { begin, end } = await agentTurn(store, 's', projectDir, { 'src/new.ts': 'export const x = 1;\n' });
    expect(begin).toEqual({ turn: 1, projectClean: true });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(end.projectCommitSkipped).toBeNull();
    expect(git(projectDir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>')).toBe(
      'agent (test-model via OpenProgram) <agent@openprogram.local>|agent (test-model via OpenProgram) <agent@openprogram.local>',
    );
    const body = git(projectDir, 'log', '-1', '--format=%B');
    expect(body).toContain('[agent s] turn 1: please write src/new.ts');
    expect(body).toContain('OpenProgram-Session: s');
    expect(body).toContain('OpenProgram-Turn: 1');
    expect(git(projectDir, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/new.ts');
    const timeline = await store.listCommits('s');
    expect(timeline.commits[0]!.projectCommit).toBe(end.projectCommit);
    expect(timeline.commits[0]!.message).toBe('turn: please write src/new.ts');
    const commits = await store.projectCommits(project.id);
    expect(commits.map((c) => [c.sha, c.sessionId, c.turn])).toEqual([[end.projectCommit, 's', 1]]);
  });

  it('a dirty tree gets no commit and a project_commit_skipped event; the user\'s staged work stays staged', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    writeFileSync(join(projectDir, 'README.md'), 'user edit\n');
    git(projectDir, 'add', 'README.md');
    const userHead = git(projectDir, 'rev-parse', 'HEAD');
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    const { begin, end } = await agentTurn(store, 's', projectDir, { 'notes.md': 'agent\n' }, false);
    expect(begin.projectClean).toBe(false);
    expect(end.projectCommit).toBeNull();
    expect(end.projectCommitSkipped?.reason).toBe('dirty_tree');
    expect(events.find((e) => e.type === 'project_commit_skipped')?.data).toMatchObject({ sessionId: 's', projectId: project.id, reason: 'dirty_tree' });
    expect(git(projectDir, 'rev-parse', 'HEAD')).toBe(userHead);
    expect(status(projectDir)).toEqual(['?? notes.md', 'M  README.md']);
    expect(end.sessionCommit).toMatch(/^[0-9a-f]{40}$/); // the session still records the turn
  });

  it('commits known writes even when other files were dirty, leaving the user\'s changes alone', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    writeFileSync(join(projectDir, 'README.md'), 'user staged\n');
    git(projectDir, 'add', 'README.md');
    const { end } = await agentTurn(store, 's', projectDir, { 'src/agent.ts': 'export const a = 1;\n' });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(projectDir, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/agent.ts');
    expect(status(projectDir)).toEqual(['M  README.md']);
  });

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

  it('attachments land in the session repo, are committed with the turn, and escapes are refused', async () => {
    const { store, stateDir } = await setup();
    stores.push(store);
    await store.createSession({ id: 's' });
    const saved = await store.saveAttachment('s', { name: '../../evil name.txt', data: Buffer.from('hello') });
    expect(saved.path.startsWith(join(stateDir, 'sessions', 's', 'workdir', 'attachments'))).toBe(true);
    expect((await store.resolveAttachment('s', saved.id)).size).toBe(5);
    await expect(store.resolveAttachment('s', '../meta.json')).rejects.toThrow();
    await store.appendMessage('s', { role: 'user', content: `[attachment: ${saved.id}]` });
    await store.finalizeTurn('s');
    expect(git(join(stateDir, 'sessions', 's'), 'ls-tree', '-r', '--name-only', 'HEAD')).toContain(`workdir/attachments/${saved.id}`);
  });

  it('extra working directories change any time, inside the allowed roots only', async () => {
    const { store, workspace } = await setup();
    stores.push(store);
    await store.createSession({ id: 's' });
    await store.appendMessage('s', { role: 'user', content: 'x' });
    await store.finalizeTurn('s');
    const docs = join(workspace, 'app', 'src');
    await store.setWorkdirs('s', [docs]);
    expect((await store.getSession('s')).workdirs).toEqual([docs]);
    await expect(store.setWorkdirs('s', ['/etc'])).rejects.toBeInstanceOf(ForbiddenPathError);
    await store.setWorkdirs('s', []);
    expect((await store.getSession('s')).workdirs).toEqual([]);
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
