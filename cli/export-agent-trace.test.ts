import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTraceRecords } from '../lib/export/index.js';
import { agentTurn, cleanupTempDirs, tempDir } from '../lib/store/testing/project-repos.js';
import { run } from './main.js';
import { dataDirProject } from './testing/data-dir-project.js';

describe('entity-memory sessions export --format agent-trace, on a data directory no server holds', () => {
  afterEach(cleanupTempDirs);

  it('writes the Agent Trace records of the route, one JSON a line, to <id>.agent-trace.jsonl', async () => {
    const data = tempDir('em-trace-');
    const lines: string[] = [];
    const cli = (...args: string[]) => run(['--data', data, ...args], { out: (line) => lines.push(line), err: (line) => lines.push(line) }, {} as NodeJS.ProcessEnv);
    const { store, projectDir } = await dataDirProject(data);
    const sha = (await agentTurn(store, 's', projectDir, { 'notes.md': 'one\ntwo\n' })).end.projectCommit!;
    const expected = await agentTraceRecords(store, 's');
    await store.close();

    const file = join(tempDir('em-trace-out-'), 's.agent-trace.jsonl');
    expect(await cli('sessions', 'export', 's', '--format', 'agent-trace', '-o', file)).toBe(0);
    expect(lines.pop()).toMatch(/^Exported session s \(agent-trace\) to .*s\.agent-trace\.jsonl: \d+ bytes$/);
    const records = readFileSync(file, 'utf8').trimEnd().split('\n').map((row) => JSON.parse(row) as unknown);
    expect(records).toEqual(expected);
    expect(records).toMatchObject([{ vcs: { revision: sha }, files: [{ path: 'notes.md', conversations: [{ contributor: { type: 'ai', model_id: 'test-model' }, ranges: [{ start_line: 1, end_line: 2 }] }] }] }]);
    expect(await cli('sessions', 'export', 's', '--format', 'agent-traces')).toBe(2);
  });
});
