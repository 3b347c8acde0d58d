import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git } from '../lib/store/testing/project-repos.js';
import { run } from './main.js';
import { dataDirProject } from './testing/data-dir-project.js';

async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['--data', dataDir, ...args], { out: (line) => out.push(line), err: (line) => err.push(line) }, {} as NodeJS.ProcessEnv);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('entity-memory blame, on a data directory no server holds', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('finds the project by the file\'s folder and prints project.blame as TSV or JSON', async () => {
    const data = mkdtempSync(join(tmpdir(), 'em-blame-'));
    dirs.push(data);
    const { store, projectDir, project } = await dataDirProject(data);
    await store.beginTurn('s');
    await store.appendMessage('s', { role: 'user', content: 'write\tthe notes' });
    await store.snapshotBeforeEdit('s', 'notes.md');
    writeFileSync(join(projectDir, 'notes.md'), 'one\n');
    await store.appendMessage('s', { role: 'assistant', content: 'done' });
    const agentSha = (await store.finalizeTurn('s', { writtenPaths: ['notes.md'], model: 'm1' })).projectCommit!;
    const expected = await store.getBranch('s');
    await store.close();
    writeFileSync(join(projectDir, 'notes.md'), 'one\ntwo\\x\n');
    git(projectDir, 'commit', '-qam', 'mine');
    const handSha = git(projectDir, 'rev-parse', 'HEAD');

    const json = await cli(data, 'blame', join(projectDir, 'notes.md'), '--json');
    expect(json).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(json.out)).toEqual({
      projectId: project.id,
      path: 'notes.md',
      rev: handSha,
      lines: [
        { line: 1, text: 'one', sha: agentSha, by: 'agent', sessionId: 's', turn: 1, agent: 'm1', prompt: 'write\tthe notes', messageId: expected[0]!.id },
        { line: 2, text: 'two\\x', sha: handSha, by: 'person' },
      ],
    });
    const tsv = await cli(data, 'blame', join(projectDir, 'notes.md'));
    expect(tsv.out.split('\n')).toEqual([
      'LINE\tSHA\tBY\tSESSION\tTURN\tAGENT\tPROMPT\tTEXT',
      `1\t${agentSha}\tagent\ts\t1\tm1\twrite\\tthe notes\tone`,
      `2\t${handSha}\tperson\t\t\t\t\ttwo\\\\x`,
    ]);
    expect(await cli(data, 'blame', join(data, 'elsewhere.txt'))).toMatchObject({ code: 1, err: expect.stringContaining('no file') });
    writeFileSync(join(data, 'outside.txt'), 'x\n');
    expect(await cli(data, 'blame', join(data, 'outside.txt'))).toMatchObject({ code: 1, err: expect.stringContaining('is not inside any of your projects') });
  });
});
