import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, createSession, e2eDataDir, e2eScratchDir, expect, git, makeProjectRepo, MODEL_NAME, mutate, test, type ProjectSummary, type TestUser } from '../fixtures';

// DESIGN §14 "Bisect": `entity-memory bisect` against the running server; the turns' project
// commits come from the API, the command runs here in temporary worktrees of the project folder.

const BIN = join(process.cwd(), 'cli', 'bin.mjs');

function cliArgs(user: TestUser, args: string[]): string[] {
  return [BIN, '--data', e2eDataDir(), '--user', user.email, ...args];
}

function cli(user: TestUser, ...args: string[]): { code: number | null; out: string; err: string } {
  const result = spawnSync(process.execPath, cliArgs(user, args), { encoding: 'utf8' });
  return { code: result.status, out: result.stdout.trim(), err: result.stderr.trim() };
}

/** The worktrees git lists for the folder (the folder itself is the first). */
function worktrees(folder: string): string[] {
  return git(folder, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
}

/** A session of 12 agent turns through the API, each a project commit; from turn 7 on state.txt no longer says ok. */
async function twelveTurns(user: TestUser, id: string): Promise<string> {
  const folder = realpathSync(makeProjectRepo(user.id, `bisect-${id}`));
  writeFileSync(join(folder, 'state.txt'), 'ok\n');
  git(folder, 'add', 'state.txt');
  git(folder, 'commit', '-q', '-m', 'the test passes');
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: folder })).data;
  await createSession(user.api, { id, projectId: project.id });
  for (let turn = 1; turn <= 12; turn++) {
    expect((await mutate(user.api, 'turn.begin', { sessionId: id })).status).toBe(200);
    writeFileSync(join(folder, 'state.txt'), turn >= 7 ? 'fail\n' : 'ok\n');
    writeFileSync(join(folder, `step${turn}.txt`), `step ${turn}\n`);
    await appendMessage(user.api, id, { role: 'user', content: `Please do step ${turn}` });
    await appendMessage(user.api, id, { role: 'assistant', content: `Step ${turn} is done.` });
    const done = await mutate<{ projectCommit: string | null }>(user.api, 'turn.finalize', { sessionId: id, writtenPaths: ['state.txt', `step${turn}.txt`], model: MODEL_NAME });
    expect(done.data.projectCommit).toMatch(/^[0-9a-f]{40}$/);
  }
  return folder;
}

test('bisect names turn 7 of 12 in at most 4 runs with its prompt, reply and diff, and leaves no worktree', async ({ user }) => {
  test.setTimeout(120_000);
  const folder = await twelveTurns(user, 'bisect-found');
  const log = join(e2eScratchDir(), `bisect-runs-${user.id}.log`);
  const result = cli(user, 'bisect', 'bisect-found', '--', 'sh', '-c', `echo run >> '${log}'; grep -q ok state.txt`);
  expect(result.code, result.err).toBe(0);
  expect(result.out).toMatch(/^turn 7 is the first bad turn \(4 runs of the command\)$/m);
  expect(result.out).toContain('prompt:\nPlease do step 7\n');
  expect(result.out).toContain('reply:\nStep 7 is done.\n');
  expect(result.out).toContain('-ok\n+fail');
  expect(result.out).toContain('+++ b/step7.txt');
  expect(result.err).toMatch(/^step 2\/5: turn 6 … good$/m);
  expect(readFileSync(log, 'utf8').trim().split('\n').length).toBeLessThanOrEqual(4);
  expect(worktrees(folder)).toEqual([folder]);
  expect(git(folder, 'status', '--porcelain')).toBe('');
});

test('SIGINT during run 2 stops the command, removes its worktree and exits 130', async ({ user }) => {
  test.setTimeout(120_000);
  const folder = await twelveTurns(user, 'bisect-stopped');
  const log = join(e2eScratchDir(), `bisect-stop-${user.id}.log`);
  // Run 2 sleeps until it is stopped.
  const command = `echo run >> '${log}'; if [ "$(wc -l < '${log}')" -ge 2 ]; then sleep 120; fi; grep -q ok state.txt`;
  const child = spawn(process.execPath, cliArgs(user, ['bisect', 'bisect-stopped', '--', 'sh', '-c', command]), { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await expect.poll(() => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0), { timeout: 60_000 }).toBe(2);
  const during = worktrees(folder);
  expect(during).toHaveLength(2);
  child.kill('SIGINT');
  expect(await exited).toBe(130);
  expect(err).toContain('bisect stopped by SIGINT');
  expect(worktrees(folder)).toEqual([folder]);
  expect(existsSync(during[1]!)).toBe(false);
  expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
});

test('a session with no project commits is refused with a clear message', async ({ user }) => {
  await createSession(user.api, { id: 'bisect-talk' });
  await appendMessage(user.api, 'bisect-talk', { role: 'user', content: 'only talk' });
  const result = cli(user, 'bisect', 'bisect-talk', '--', 'true');
  expect(result).toEqual({ code: 1, out: '', err: 'session bisect-talk has no project commits: no turn changed a project\'s files, so there is nothing to bisect' });
});
