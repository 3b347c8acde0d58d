import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoreEvent } from '../events.js';
import { git, openProjectStore as setup, status, storesClosedAfterEach, tempDir, writeFiles } from '../testing/project-repos.js';
import type { SessionStore } from '../session-store.js';
import type { ExchangeStep } from './record-exchange.js';

// An agent's run as the proxy records it: exchange 1 asks for tools, the agent runs them in
// the folder, exchange 2 carries their results. Fingerprints are spelled out (the store only compares them).
const user = (fp: string, content: string): ExchangeStep => ({ role: 'user', fingerprint: fp, content });
const asks = (fp: string): ExchangeStep => ({ role: 'assistant', fingerprint: fp, content: '', toolCalls: [{ id: 'c1', name: 'Bash', arguments: '{}' }] });
const answer = (fp: string, content: string): ExchangeStep => ({ role: 'assistant', fingerprint: fp, content });
const result = (content: string): ExchangeStep => ({ role: 'tool', callId: 'c1', content });

async function run(store: SessionStore, sessionId: string, folder: string, prompt: string, tools: () => void, where: { cwd?: string; header?: string } = { cwd: folder }) {
  const options = { source: 'proxy:claude-code', agentId: 'claude-code', model: 'claude-test', where };
  const first = await store.recordExchange({ sessionId, steps: [user(`${sessionId}u`, prompt)], reply: asks(`${sessionId}a`) }, options);
  tools();
  const second = await store.recordExchange({ sessionId, steps: [user(`${sessionId}u`, prompt), asks(`${sessionId}a`), result('ok')], reply: answer(`${sessionId}b`, 'done') }, options);
  return { first, second };
}

describe('an agent exchange in a registered project folder: a project commit of the working tree', () => {
  const stores = storesClosedAfterEach();

  it('binds the session to the project of its working directory and commits new, changed, deleted and untracked files, ignored ones left out, under the agent with the trailers; undo and redo', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    writeFiles(projectDir, { '.gitignore': 'build/\n' });
    git(projectDir, 'add', '.gitignore');
    git(projectDir, 'commit', '-q', '-m', 'ignore build');
    const before = git(projectDir, 'rev-parse', 'HEAD');
    mkdirSync(join(projectDir, 'src', 'deep'), { recursive: true });
    const { first, second } = await run(store, 'cc-1', join(projectDir, 'src', 'deep'), 'change things', () => {
      writeFiles(projectDir, { 'a.txt': 'written\n', 'src/app.ts': 'export const changed = 1;\n', 'build/out.js': 'ignored\n' });
      rmSync(join(projectDir, 'README.md'));
    });
    expect(first.projectCommit).toBeNull(); // nothing had changed yet
    expect(second.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    expect((await store.getSession('cc-1')).projectId).toBe(project.id);
    expect(git(projectDir, 'log', '-1', '--format=%an <%ae>')).toBe('agent (claude-test via Entity Memory) <agent@openprogram.local>');
    const body = git(projectDir, 'log', '-1', '--format=%B');
    expect(body).toContain('[agent cc-1] turn 2: change things');
    expect(body).toContain('OpenProgram-Session: cc-1\nOpenProgram-Turn: 2');
    expect(git(projectDir, 'show', '--name-status', '--format=', 'HEAD').split('\n').sort()).toEqual(['A\ta.txt', 'D\tREADME.md', 'M\tsrc/app.ts']);
    expect(status(projectDir)).toEqual([]);
    const timeline = await store.listTurns('cc-1');
    expect(timeline.commits[0]).toMatchObject({ turn: 2, projectCommit: second.projectCommit, fileEdits: 'applied', projectCommitSharedWith: [] });

    await store.undoTurn('cc-1', 2);
    expect(git(projectDir, 'rev-parse', 'HEAD')).toBe(before);
    expect(existsSync(join(projectDir, 'a.txt'))).toBe(false);
    expect(readFileSync(join(projectDir, 'README.md'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(projectDir, 'src/app.ts'), 'utf8')).toBe('export {}\n');
    expect(existsSync(join(projectDir, 'build/out.js'))).toBe(true); // never the agent's to take back
    await store.redoTurn('cc-1', 2);
    expect(git(projectDir, 'rev-parse', 'HEAD')).toBe(second.projectCommit);
    expect(readFileSync(join(projectDir, 'a.txt'), 'utf8')).toBe('written\n');
  });

  it("files written after the answer's last byte (its tools at work while it is recorded) wait for the next exchange's commit", async () => {
    const { store, projectDir } = await setup();
    stores.push(store);
    const options = { source: 'proxy:claude-code', agentId: 'claude-code', model: 'm', where: { cwd: projectDir } };
    await store.recordExchange({ sessionId: 'cut', steps: [user('cu', 'go')], reply: asks('ca') }, options);
    const lastByte = Date.now() - 60_000;
    writeFiles(projectDir, { 'before.txt': 'asked earlier\n', 'after.txt': 'a tool of this answer\n' });
    utimesSync(join(projectDir, 'before.txt'), new Date(lastByte - 1000), new Date(lastByte - 1000));
    utimesSync(join(projectDir, 'after.txt'), new Date(lastByte + 1000), new Date(lastByte + 1000));
    const second = await store.recordExchange({ sessionId: 'cut', steps: [user('cu', 'go'), asks('ca'), result('ok')], reply: asks('cb') }, { ...options, answerEndedAt: lastByte });
    expect(git(projectDir, 'show', '--name-only', '--format=', second.projectCommit!)).toBe('before.txt');
    expect(status(projectDir)).toEqual(['?? after.txt']);
    const third = await store.recordExchange({ sessionId: 'cut', steps: [user('cu', 'go'), asks('ca'), result('ok'), asks('cb'), result('ok')], reply: answer('cc', 'done') }, { ...options, answerEndedAt: Date.now() });
    expect(git(projectDir, 'show', '--name-only', '--format=', third.projectCommit!)).toBe('after.txt');
  });

  it('a session the recorder created in Home before its first exchange (as server/proxy/recorder.ts does) moves into the project of its folder', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 'early', source: 'proxy:claude-code', agentId: 'claude-code' });
    await run(store, 'early', projectDir, 'go', () => writeFiles(projectDir, { 'e.txt': 'e\n' }));
    expect((await store.getSession('early')).projectId).toBe(project.id);
    expect(git(projectDir, 'log', '-1', '--format=%s')).toBe('[agent early] turn 2: go');
  });

  it('the x-entity-memory-project header names the project by id or by folder, before the working directory', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    const elsewhere = tempDir('em-elsewhere-');
    await run(store, 'by-id', elsewhere, 'one', () => writeFiles(projectDir, { 'one.txt': '1\n' }), { header: project.id, cwd: elsewhere });
    await run(store, 'by-path', elsewhere, 'two', () => writeFiles(projectDir, { 'two.txt': '2\n' }), { header: projectDir });
    expect((await store.getSession('by-id')).projectId).toBe(project.id);
    expect((await store.getSession('by-path')).projectId).toBe(project.id);
    expect(git(projectDir, 'log', '--format=%s', '-2').split('\n')).toEqual(['[agent by-path] turn 2: two', '[agent by-id] turn 2: one']);
  });

  it('no commit, and the timeline keeps why, when changes are staged, a rebase is in progress or HEAD is detached', async () => {
    const { store, projectDir } = await setup();
    stores.push(store);
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    writeFiles(projectDir, { 'staged.txt': 'mine\n' });
    git(projectDir, 'add', 'staged.txt');
    const staged = await run(store, 's1', projectDir, 'x', () => writeFiles(projectDir, { 'agent.txt': 'a\n' }));
    expect(staged.second.projectCommitSkipped).toMatchObject({ reason: 'dirty_index', message: expect.stringContaining('staged') });
    expect(status(projectDir)).toEqual(['?? agent.txt', 'A  staged.txt']); // the user's staging untouched
    expect((await store.listTurns('s1')).commits[0]!.projectCommitSkipped).toBe('dirty_index');
    expect(events.some((event) => event.type === 'project_commit_skipped')).toBe(true);
    git(projectDir, 'reset', '-q');

    mkdirSync(join(projectDir, '.git', 'rebase-merge'));
    const rebasing = await run(store, 's2', projectDir, 'y', () => writeFiles(projectDir, { 'agent2.txt': 'a\n' }));
    expect(rebasing.second.projectCommitSkipped?.reason).toBe('operation_in_progress');
    rmSync(join(projectDir, '.git', 'rebase-merge'), { recursive: true });

    git(projectDir, 'checkout', '-q', '--detach');
    const detached = await run(store, 's3', projectDir, 'z', () => writeFiles(projectDir, { 'agent3.txt': 'a\n' }));
    expect(detached.second.projectCommitSkipped?.reason).toBe('detached_head');
    expect((await store.listTurns('s3')).commits[0]!.projectCommitSkipped).toBe('detached_head');
  });

  it('two sessions in one folder: each change is committed once, and a commit made while the other was running its tools says so', async () => {
    const { store, projectDir } = await setup();
    stores.push(store);
    const options = { source: 'proxy:claude-code', agentId: 'claude-code', model: 'm', where: { cwd: projectDir } };
    // A asks for tools, then B asks for tools; both write; A comes back first.
    await store.recordExchange({ sessionId: 'A', steps: [user('Au', 'a')], reply: asks('Aa') }, options);
    await store.recordExchange({ sessionId: 'B', steps: [user('Bu', 'b')], reply: asks('Ba') }, options);
    writeFiles(projectDir, { 'from-a.txt': 'a\n', 'from-b.txt': 'b\n' });
    const a = await store.recordExchange({ sessionId: 'A', steps: [user('Au', 'a'), asks('Aa'), result('ok')], reply: answer('Ab', 'done') }, options);
    writeFiles(projectDir, { 'from-b-later.txt': 'b\n' });
    const b = await store.recordExchange({ sessionId: 'B', steps: [user('Bu', 'b'), asks('Ba'), result('ok')], reply: answer('Bb', 'done') }, options);
    expect(git(projectDir, 'show', '--name-only', '--format=', a.projectCommit!).split('\n').sort()).toEqual(['from-a.txt', 'from-b.txt']);
    expect(git(projectDir, 'show', '--name-only', '--format=', b.projectCommit!)).toBe('from-b-later.txt');
    expect(git(projectDir, 'log', '-1', '--format=%B', a.projectCommit!)).toContain('OpenProgram-Shared-With: B');
    expect(git(projectDir, 'log', '-1', '--format=%B', b.projectCommit!)).not.toContain('Shared-With');
    const turns = await store.listTurns('A');
    expect(turns.commits[0]!.projectCommitSharedWith).toEqual(['B']);
    expect((await store.listTurns('B')).commits[0]!.projectCommitSharedWith).toEqual([]);
  });

  it('a folder that is no project leaves the session in Home with the offer to add it; adding moves the session and later exchanges commit there', async () => {
    const { store, workspace } = await setup();
    stores.push(store);
    const folder = join(workspace, 'loose');
    mkdirSync(folder);
    writeFileSync(join(folder, 'start.txt'), 'x\n');
    await run(store, 'h', folder, 'hi', () => writeFiles(folder, { 'b.txt': 'b\n' }));
    const inHome = await store.getSession('h');
    expect(inHome.projectId).toBe('default');
    expect(inHome.agentFolder).toEqual({ path: folder, addable: true });
    const outside = tempDir('em-outside-');
    await run(store, 'far', outside, 'hi', () => {});
    expect((await store.getSession('far')).agentFolder).toEqual({ path: outside, addable: false });
    await expect(store.addAgentFolderAsProject('far')).rejects.toMatchObject({ code: 'FORBIDDEN' });

    const added = await store.addAgentFolderAsProject('h');
    expect(added.project.path).toBe(folder);
    const moved = await store.getSession('h');
    expect(moved).toMatchObject({ projectId: added.project.id, agentFolder: null });
    const next = await store.recordExchange(
      { sessionId: 'h', steps: [user('hu', 'hi'), asks('ha'), result('ok'), answer('hb', 'done'), user('hu2', 'more')], reply: answer('hc', 'ok') },
      { source: 'proxy:claude-code', agentId: 'claude-code', model: 'm', where: { cwd: folder } },
    );
    writeFiles(folder, { 'c.txt': 'c\n' });
    const last = await store.recordExchange(
      { sessionId: 'h', steps: [user('hu', 'hi'), asks('ha'), result('ok'), answer('hb', 'done'), user('hu2', 'more'), answer('hc', 'ok'), user('hu3', 'again')], reply: answer('hd', 'ok') },
      { source: 'proxy:claude-code', agentId: 'claude-code', model: 'm', where: { cwd: folder } },
    );
    expect(next.projectCommit).toBeNull();
    expect(git(folder, 'show', '--name-only', '--format=', last.projectCommit!)).toBe('c.txt');
  });
});
