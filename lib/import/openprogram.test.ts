import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../store/index.js';
import { redactMessage } from '../redact/index.js';
import { importStateDir, inventoryStateDir } from './openprogram.js';
import { importFile, importInputs, inputsFromPaths } from './import-file.js';
import { zipStateDir } from './state-zip.js';
import { growSession, makeOpenProgramState } from './testing/openprogram-state.js';

const SAMPLE = resolve(import.meta.dirname, '../../../shared/fixtures/openprogram-state.tar.gz');

const temps: string[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } as unknown as NodeJS.ProcessEnv }).trim();
}

/** A store of "our" user whose workspace is the one the state directory's project lives in. */
async function target(root: string): Promise<{ store: SessionStore; dataDir: string }> {
  const dataDir = join(root, 'data');
  const store = await SessionStore.open({ stateDir: dataDir, workspaceRoot: join(root, 'work') });
  stores.push(store);
  return { store, dataDir };
}

describe('an OpenProgram state directory', () => {
  for (const legacy of [false, true]) {
    it(`is imported whole${legacy ? ' from the seeds\' older layout (<project>/.openprogram/sessions, named by locations.json)' : ''}: ids, DAG, commits, attachments, the project-bound session moved in`, { timeout: 60_000 }, async () => {
      const root = temp('op-import-');
      const state = await makeOpenProgramState(root, { legacy });
      const inventory = inventoryStateDir(state.stateDir);
      expect(inventory.sessions.map((s) => [s.id, s.projectId]).sort()).toEqual([
        ['op-bound', state.projectId],
        ['op-fork', 'default'],
        ['op-plain', 'default'],
      ]);
      expect(inventory.sessions.find((s) => s.id === 'op-bound')!.recoveryDir).toBeTruthy();

      const { store, dataDir } = await target(root);
      const report = await importStateDir(store, state.stateDir);
      expect(report).toEqual({ added: 3, updated: 0, unchanged: 0, alreadyRecorded: 0, ignoredLines: 0, ignoredLineTypes: {}, redacted: 0, skipped: [] });
      for (const id of ['op-plain', 'op-fork']) {
        expect(git(join(dataDir, 'sessions', id), 'for-each-ref')).toBe(git(join(state.stateDir, 'sessions', id), 'for-each-ref'));
        expect(store.getRow(id)!.source).toBe('openprogram');
      }
      const bound = join(dataDir, 'sessions', 'projects', state.projectId, 'op-bound');
      expect(git(bound, 'rev-parse', 'main')).toBe(git(state.boundRepo, 'rev-parse', 'main'));
      expect(JSON.parse(readFileSync(join(dataDir, 'sessions', 'locations.json'), 'utf8'))).toEqual({ 'op-bound': bound });
      expect(existsSync(join(dataDir, 'sessions', '.file-recovery', 'op-bound', '1', 'manifest.json'))).toBe(true);
      expect(store.getRow('op-bound')!.project).toBe('App');
      // The attachment came with its turn's commit.
      expect(git(join(dataDir, 'sessions', 'op-plain'), 'show', 'main:workdir/attachments/notes.txt')).toBe('attached notes');
      // The fork: both replies, the head on the retry.
      const fork = await store.getBranch('op-fork');
      expect(fork.map((m) => m.id)).toEqual(['f1', 'f3']);
      expect(fork[1]!.siblings).toEqual(['f2', 'f3']);
      const plain = await store.getBranch('op-plain');
      expect(plain[1]!.toolCalls.map((call) => call.name)).toEqual(['list_dir']);

      expect(await importStateDir(store, state.stateDir)).toMatchObject({ added: 0, updated: 0, unchanged: 3, skipped: [] });
      await growSession(state, 'op-plain', 'One more question', 'One more answer');
      expect(await importStateDir(store, state.stateDir)).toMatchObject({ added: 0, updated: 1, unchanged: 2, skipped: [] });
      expect((await store.getBranch('op-plain')).slice(-2).map((m) => m.content)).toEqual(['One more question', 'One more answer']);
    });
  }

  it('the sample written by OpenProgram itself comes in with its ids, branches and commit messages', async () => {
    const root = temp('op-sample-');
    execFileSync('tar', ['-xzf', SAMPLE, '-C', root]);
    const expected = JSON.parse(readFileSync(SAMPLE.replace('.tar.gz', '.expected.json'), 'utf8')) as { sessions: Record<string, { branch: [string, string][]; commits: string[] }> };
    const store = await SessionStore.open({ stateDir: join(root, 'data') });
    stores.push(store);
    const report = await importStateDir(store, root);
    expect(report.added).toBe(Object.keys(expected.sessions).length);
    for (const [id, want] of Object.entries(expected.sessions)) {
      expect((await store.getBranch(id)).map((m) => [m.role, m.content])).toEqual(want.branch);
      expect((await store.listCommits(id)).commits.map((c) => c.message)).toEqual(want.commits);
      expect(store.getRow(id)!.source).toBe('openprogram');
    }
  });

  it('a folder that is not a state directory is refused whole, and nothing is made', async () => {
    const root = temp('op-not-');
    const { store, dataDir } = await target(root);
    mkdirSync(join(root, 'fake', 'sessions', 'x'), { recursive: true });
    writeFileSync(join(root, 'fake', 'sessions', 'notes.txt'), 'hello');
    const report = await importStateDir(store, join(root, 'fake'));
    expect(report.skipped).toEqual([{ file: 'fake', line: 0, reason: 'refused: not an OpenProgram state directory: no session repository (a folder with meta.json and .git) under sessions/' }]);
    expect((await importStateDir(store, join(root, 'nothing-here'))).skipped[0]!.reason).toMatch(/^refused: not an OpenProgram state directory/);
    // A repo without .git, a listed session without a folder: each reported, nothing imported.
    writeFileSync(join(root, 'fake', 'sessions', 'x', 'meta.json'), JSON.stringify({ id: 'x' }));
    writeFileSync(join(root, 'fake', 'sessions', 'index.json'), JSON.stringify({ gone: { id: 'gone' } }));
    const partial = await importStateDir(store, join(root, 'fake'));
    expect(partial.skipped.map((s) => [s.file, s.reason])).toEqual([
      ['fake/sessions/x', 'not imported: it has no .git folder (not a session repository)'],
      ['fake/sessions/index.json', 'session gone is listed but its repository was not found'],
    ]);
    expect(store.listSessions({ scope: 'all' }).rows).toEqual([]);
    expect(existsSync(join(dataDir, 'sessions', 'x'))).toBe(false);
  });

  it('a planted key is nowhere under the data directory afterwards (files and every git object)', { timeout: 60_000 }, async () => {
    const root = temp('op-secret-');
    const key = `sk-ant-api03-${'Q'.repeat(93)}AA`;
    const state = await makeOpenProgramState(root, { secret: key });
    const { store, dataDir } = await target(root);
    store.setRedactor(redactMessage);
    const report = await importStateDir(store, state.stateDir);
    expect(report.added).toBe(3);
    expect(report.redacted).toBeGreaterThan(0);
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: join(dataDir, 'sessions', 'op-plain') }).toString('latin1');
    expect(objects).not.toContain('QQQQQQQQQQQQQQQQQQQQ');
    const grep = spawnSync('grep', ['-rl', 'QQQQQQQQQQQQQQQQQQQQ', dataDir], { encoding: 'utf8' });
    expect({ status: grep.status, files: grep.stdout }).toEqual({ status: 1, files: '' });
    expect((await store.getBranch('op-plain'))[0]!.content).toContain('[REDACTED:');
    expect(git(join(dataDir, 'sessions', 'op-plain'), 'rev-list', '--count', 'main')).toBe(git(join(state.stateDir, 'sessions', 'op-plain'), 'rev-list', '--count', 'main'));
  });

  it('as a zip (what the page and the CLI through the server send) and as a folder given to the CLI', { timeout: 60_000 }, async () => {
    const root = temp('op-zip-');
    const state = await makeOpenProgramState(root);
    const { store } = await target(root);
    const fromZip = await importFile(store, 'state.zip', zipStateDir(state.stateDir));
    expect(fromZip).toMatchObject({ added: 3, skipped: [] });
    const inputs = await inputsFromPaths([state.stateDir]);
    expect(inputs.map((input) => [input.name, input.stateDir])).toEqual([['state.zip', state.stateDir]]);
    const progress: number[] = [];
    expect(await importInputs(store, inputs, { onProgress: (p) => progress.push(p.filesDone) })).toMatchObject({ unchanged: 3, skipped: [] });
    expect(progress.at(-1)).toBe(1);
    // A zip of something else entirely is still refused as before.
    const other = await importFile(store, 'other.zip', zipStateDir(join(root, 'work')));
    expect(other.skipped.at(-1)!.reason).toMatch(/no conversations\.json .* and no sessions\/ folder/);
  });
});
