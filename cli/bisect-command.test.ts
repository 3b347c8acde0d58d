import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../lib/store/index.js';
import { cleanupTempDirs, git, makeRepo, tempDir, writeFiles } from '../lib/store/testing/project-repos.js';
import { run } from './main.js';
import type { BisectReport } from './bisect-command.js';

async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['--data', dataDir, ...args], { out: (line) => out.push(line), err: (line) => err.push(line) }, {} as NodeJS.ProcessEnv);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const bisectTemps = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith('entity-memory-bisect-'));

/** A data directory whose admin has a session of `turns` turns in a project; turn `breaksAt` writes "fail" to state.txt (no "ok" in it). */
async function projectSession(turns: number, breaksAt: number): Promise<{ data: string; folder: string }> {
  const data = tempDir('em-bisect-');
  const created = await cli(data, 'users', 'add', 'admin@bisect.test', '--password', 'a long password', '--admin', '--json');
  const userId = (JSON.parse(created.out) as { id: string }).id;
  const workspace = join(data, 'workspaces', userId);
  mkdirSync(join(workspace, 'app'), { recursive: true });
  const folder = makeRepo({ 'state.txt': 'ok\n' }, join(workspace, 'app'));
  const store = await SessionStore.open({ stateDir: join(data, 'users', userId), workspaceRoot: workspace });
  const project = await store.createProject(folder, 'App');
  await store.createSession({ id: 'work', projectId: project.id });
  await store.createSession({ id: 'talk' });
  for (let turn = 1; turn <= turns; turn++) {
    await store.beginTurn('work');
    writeFiles(folder, { 'state.txt': turn >= breaksAt ? 'fail\n' : 'ok\n', [`f${turn}.txt`]: `${turn}\n` });
    await store.appendMessage('work', { role: 'user', content: `prompt of turn ${turn}` });
    await store.appendMessage('work', { role: 'assistant', content: `reply of turn ${turn}` });
    await store.finalizeTurn('work', { writtenPaths: ['state.txt', `f${turn}.txt`], model: 'm' });
    await store.appendMessage('talk', { role: 'user', content: `just talk ${turn}` });
    await store.finalizeTurn('talk', { model: 'm' });
  }
  await store.close();
  return { data, folder };
}

describe('entity-memory bisect, on a data directory no server holds', () => {
  afterEach(() => cleanupTempDirs());

  it('names the turn that broke the test in at most ⌈log2 n⌉+1 runs, with its prompt, reply and diff, and leaves no worktree', async () => {
    const { data, folder } = await projectSession(12, 7);
    const log = join(data, 'runs.log');
    const before = bisectTemps();
    const result = await cli(data, 'bisect', 'work', '--json', '--', 'sh', '-c', `echo run >> '${log}'; grep -q ok state.txt`);
    expect(result.code, result.err).toBe(0);
    const report = JSON.parse(result.out) as BisectReport;
    expect(report).toMatchObject({ sessionId: 'work', firstBadTurn: 7, prompt: 'prompt of turn 7', reply: 'reply of turn 7', runs: 4 });
    expect(report.steps.map((step) => [step.turn, step.verdict])).toEqual([[12, 'bad'], [6, 'good'], [9, 'bad'], [7, 'bad']]);
    expect(report.diff).toContain('-ok\n+fail');
    expect(report.diff).toContain('+++ b/f7.txt');
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(4);
    expect(result.err).toContain('step 2/5: turn 6 … good');
    expect(git(folder, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(bisectTemps()).toEqual(before);
  });

  it('narrows with --good and --bad; says so when the bad end passes; a plain text output', async () => {
    const { data } = await projectSession(6, 4);
    const narrowed = await cli(data, 'bisect', 'work', '--good', '2', '--bad', '5', '--', 'grep', '-q', 'ok', 'state.txt');
    expect(narrowed.code, narrowed.err).toBe(0);
    expect(narrowed.out).toMatch(/^turn 4 is the first bad turn \(3 runs of the command\)\n\nprompt:\nprompt of turn 4\n\nreply:\nreply of turn 4\n\ndiff:\ncommit [0-9a-f]{40}/);
    expect(narrowed.err).toContain('after turn 2 (taken to be good) up to turn 5');
    const passes = await cli(data, 'bisect', 'work', '--bad', '3', '--', 'grep', '-q', 'ok', 'state.txt');
    expect(passes).toMatchObject({ code: 1, out: '', err: expect.stringContaining('turn 3 passes (the command exits 0 there): no bad turn to find') });
  });

  it('refuses a session without project commits, turns it does not have, and a missing command', async () => {
    const { data } = await projectSession(2, 2);
    expect(await cli(data, 'bisect', 'talk', '--', 'true')).toMatchObject({ code: 1, out: '', err: expect.stringContaining('session talk has no project commits') });
    expect(await cli(data, 'bisect', 'work', '--bad', '9', '--', 'true')).toMatchObject({ code: 2, err: expect.stringContaining('--bad must be a turn of the session, 0 to 2') });
    expect(await cli(data, 'bisect', 'work')).toMatchObject({ code: 2, err: expect.stringContaining('expected the command to run after --') });
    expect(await cli(data, 'bisect', 'nope', '--', 'true')).toMatchObject({ code: 1, err: 'no session' });
    const missing = await cli(data, 'bisect', 'work', '--', 'no-such-program-here');
    expect(missing).toMatchObject({ code: 1, err: expect.stringContaining('could not run no-such-program-here') });
    expect(existsSync(data)).toBe(true);
  });
});
