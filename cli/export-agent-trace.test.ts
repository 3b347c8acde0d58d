import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTraceRecords } from '../lib/export/index.js';
import { SessionStore } from '../lib/store/index.js';
import { makeRepo } from '../lib/store/testing/project-repos.js';
import { run } from './main.js';

describe('entity-memory sessions export --format agent-trace, on a data directory no server holds', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('writes the Agent Trace records of the route, one JSON a line, to <id>.agent-trace.jsonl', async () => {
    const data = mkdtempSync(join(tmpdir(), 'em-trace-'));
    dirs.push(data);
    const lines: string[] = [];
    const cli = (...args: string[]) => run(['--data', data, ...args], { out: (line) => lines.push(line), err: (line) => lines.push(line) }, {} as NodeJS.ProcessEnv);
    expect(await cli('users', 'add', 'admin@trace.test', '--password', 'a long password', '--admin', '--json')).toBe(0);
    const userId = (JSON.parse(lines.pop()!) as { id: string }).id;
    const workspace = join(data, 'workspaces', userId);
    mkdirSync(join(workspace, 'app'), { recursive: true });
    const projectDir = makeRepo({ 'README.md': 'hello\n' }, join(workspace, 'app'));
    const store = await SessionStore.open({ stateDir: join(data, 'users', userId), workspaceRoot: workspace });
    const project = await store.createProject(projectDir, 'App');
    await store.createSession({ id: 's', projectId: project.id });
    await store.beginTurn('s');
    await store.appendMessage('s', { role: 'user', content: 'write the notes' });
    await store.snapshotBeforeEdit('s', 'notes.md');
    writeFileSync(join(projectDir, 'notes.md'), 'one\ntwo\n');
    await store.appendMessage('s', { role: 'assistant', content: 'done' });
    const sha = (await store.finalizeTurn('s', { writtenPaths: ['notes.md'], model: 'm1' })).projectCommit!;
    const expected = await agentTraceRecords(store, 's');
    await store.close();

    const folder = mkdtempSync(join(tmpdir(), 'em-trace-out-'));
    dirs.push(folder);
    const file = join(folder, 's.agent-trace.jsonl');
    expect(await cli('sessions', 'export', 's', '--format', 'agent-trace', '-o', file)).toBe(0);
    expect(lines.pop()).toMatch(/^Exported session s \(agent-trace\) to .*s\.agent-trace\.jsonl: \d+ bytes$/);
    const records = readFileSync(file, 'utf8').trimEnd().split('\n').map((row) => JSON.parse(row) as unknown);
    expect(records).toEqual(expected);
    expect(records).toMatchObject([{ vcs: { revision: sha }, files: [{ path: 'notes.md', conversations: [{ contributor: { type: 'ai', model_id: 'm1' }, ranges: [{ start_line: 1, end_line: 2 }] }] }] }]);
    expect(await cli('sessions', 'export', 's', '--format', 'agent-traces')).toBe(2);
  });
});
