import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, openProjectStore, storesClosedAfterEach, writeFiles } from '../store/testing/project-repos.js';
import { agentTraceRecords } from './agent-trace.js';

describe('agentTraceRecords', () => {
  const stores = storesClosedAfterEach();

  it('a record per project commit of the session: the lines it added per file, the model, the turn and prompt as our metadata', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const turns: Array<{ prompt: string; files: Record<string, string> }> = [
      { prompt: 'write f', files: { 'f.txt': 'a\nb\n' } },
      { prompt: 'change b, add g', files: { 'f.txt': 'a\nB\nc\n', 'g.txt': 'g\n' } },
    ];
    const shas: string[] = [];
    for (const turn of turns) {
      await store.beginTurn('s');
      await store.appendMessage('s', { role: 'user', content: turn.prompt });
      for (const path of Object.keys(turn.files)) await store.snapshotBeforeEdit('s', path);
      writeFiles(projectDir, turn.files);
      await store.appendMessage('s', { role: 'assistant', content: 'ok' });
      shas.push((await store.finalizeTurn('s', { writtenPaths: Object.keys(turn.files), model: 'test-model' })).projectCommit!);
    }
    writeFileSync(join(projectDir, 'f.txt'), 'by hand\n');
    git(projectDir, 'commit', '-qam', 'mine'); // a person's commit is no part of the session's attribution
    const users = (await store.getBranch('s')).filter((m) => m.role === 'user');

    const records = await agentTraceRecords(store, 's');
    expect(records.map(({ id: _id, timestamp: _t, ...rest }) => rest)).toEqual([
      {
        version: '0.1',
        vcs: { type: 'git', revision: shas[0] },
        tool: { name: 'entity-memory', version: '0.1.0' },
        files: [{ path: 'f.txt', conversations: [{ contributor: { type: 'ai', model_id: 'test-model' }, ranges: [{ start_line: 1, end_line: 2 }] }] }],
        metadata: { 'dev.entity-memory': { session_id: 's', turn: 1, message_id: users[0]!.id, prompt: 'write f' } },
      },
      {
        version: '0.1',
        vcs: { type: 'git', revision: shas[1] },
        tool: { name: 'entity-memory', version: '0.1.0' },
        files: [
          { path: 'f.txt', conversations: [{ contributor: { type: 'ai', model_id: 'test-model' }, ranges: [{ start_line: 2, end_line: 3 }] }] },
          { path: 'g.txt', conversations: [{ contributor: { type: 'ai', model_id: 'test-model' }, ranges: [{ start_line: 1, end_line: 1 }] }] },
        ],
        metadata: { 'dev.entity-memory': { session_id: 's', turn: 2, message_id: users[1]!.id, prompt: 'change b, add g' } },
      },
    ]);
    for (const record of records) {
      expect(record.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Date(record.timestamp).toISOString()).toBe(record.timestamp);
    }
    // Stable: the same session exports the same records.
    expect((await agentTraceRecords(store, 's')).map((r) => r.id)).toEqual(records.map((r) => r.id));
  });

  it('is empty for a session without project commits', async () => {
    const { store } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 'home' });
    await store.appendMessage('home', { role: 'user', content: 'hi' });
    await store.finalizeTurn('home', { model: 'm' });
    expect(await agentTraceRecords(store, 'home')).toEqual([]);
  });
});
