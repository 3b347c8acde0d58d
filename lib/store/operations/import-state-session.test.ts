import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import type { Redactor } from '../types.js';

// A stand-in rule (the real ones live in lib/redact, above the store): every "SECRET-<n>" goes.
const redactor: Redactor = (message) => {
  let count = 0;
  const json = JSON.stringify({ content: message.content, input: message.input, metadata: message.metadata }).replace(/SECRET-\d+/g, () => {
    count++;
    return '[REDACTED:test]';
  });
  const parts = JSON.parse(json) as typeof message;
  return { message: { ...message, content: parts.content, ...(message.input !== undefined ? { input: parts.input } : {}), ...(message.metadata !== undefined ? { metadata: parts.metadata } : {}) }, count };
};
import { REPO_ROOT, runAndKill, SAY_SOURCE } from '../testing/kill-harness.js';
import { cleanupTempDirs, git, makeRepo, tempDir } from '../testing/project-repos.js';
import { readMigrationJournal } from '../session/migration-journal.js';
import type { StateSessionInput } from './import-state-session.js';
import { afterEach } from 'vitest';

/** A source state directory written by a store: `s` (two turns and a retry branch) and `b`, bound to project App with a recovered edit. */
async function source(secret = ''): Promise<{ stateDir: string; workspace: string; projectDir: string; projectId: string; inputs: Record<'s' | 'b', StateSessionInput> }> {
  const stateDir = tempDir('op-src-');
  const workspace = tempDir('op-ws-');
  mkdirSync(join(workspace, 'app'));
  const projectDir = makeRepo({ 'README.md': 'hello\n' }, join(workspace, 'app'));
  const store = await SessionStore.open({ stateDir, workspaceRoot: workspace });
  await store.createSession({ id: 's', source: 'web' });
  await store.appendMessage('s', { id: 'u1', role: 'user', content: `hello${secret ? ` ${secret}` : ''}` });
  await store.appendMessage('s', { id: 'a1', role: 'assistant', content: 'hi' });
  await store.finalizeTurn('s');
  await store.retry('s', 'a1');
  await store.appendMessage('s', { id: 'a2', role: 'assistant', content: 'hi again', parentId: 'u1' });
  await store.finalizeTurn('s');
  const project = await store.createProject(projectDir, 'App');
  await store.createSession({ id: 'b', projectId: project.id });
  await store.beginTurn('b');
  await store.appendMessage('b', { id: 'b1', role: 'user', content: 'write notes.md' });
  await store.snapshotBeforeEdit('b', 'notes.md');
  writeFileSync(join(projectDir, 'notes.md'), 'notes\n');
  await store.appendMessage('b', { id: 'b2', role: 'assistant', content: 'done' });
  await store.finalizeTurn('b', { writtenPaths: ['notes.md'], model: 'm' });
  await store.close();
  const sessions = join(stateDir, 'sessions');
  return {
    stateDir,
    workspace,
    projectDir,
    projectId: project.id,
    inputs: {
      s: { id: 's', repoDir: join(sessions, 's'), sourceRoot: stateDir },
      b: {
        id: 'b',
        repoDir: join(sessions, 'projects', project.id, 'b'),
        recoveryDir: join(sessions, '.file-recovery', 'b'),
        sourceRoot: stateDir,
        projectId: project.id,
        project: { name: 'App', path: projectDir },
      },
    },
  };
}

function refs(repo: string): string {
  return git(repo, 'for-each-ref', '--format=%(objectname) %(refname)');
}

/** The target store: its workspace holds the source's project folder, so the project can be adopted. */
async function target(workspace: string, stateDir = tempDir('op-dst-')): Promise<{ store: SessionStore; stateDir: string }> {
  return { store: await SessionStore.open({ stateDir, workspaceRoot: workspace }), stateDir };
}

describe('importStateSession: a session of another state directory moved in through the migration journal', () => {
  const stores: SessionStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    cleanupTempDirs();
  });

  it('a default-project session keeps its id, DAG, every commit and branch ref; source becomes openprogram', async () => {
    const src = await source();
    const { store, stateDir } = await target(src.workspace);
    stores.push(store);
    const result = await store.importStateSession(src.inputs.s);
    expect(result).toMatchObject({ outcome: 'added', nodesAdded: 3, redacted: 0 });
    const repo = join(stateDir, 'sessions', 's');
    expect(refs(repo)).toBe(refs(src.inputs.s.repoDir));
    expect(refs(repo)).toContain('refs/heads/retry-a1');
    const row = (await store.getSession('s'))!;
    expect(row.source).toBe('openprogram');
    expect((await store.getBranch('s')).map((m) => m.id)).toEqual(['u1', 'a2']);
    expect(JSON.parse(readFileSync(join(repo, 'meta.json'), 'utf8'))).toMatchObject({ source: 'openprogram', origin_source: 'web' });
    expect(readMigrationJournal(join(stateDir, 'sessions')).size).toBe(0);
    expect(existsSync(join(stateDir, 'sessions', '.migration', 'staging', 's'))).toBe(false);
  });

  it('a project-bound session: project adopted under its id, repo at projects/<pid>/<sid>, recovery beside, then the location', async () => {
    const src = await source();
    const { store, stateDir } = await target(src.workspace);
    stores.push(store);
    expect((await store.importStateSession(src.inputs.b)).outcome).toBe('added');
    const repo = join(stateDir, 'sessions', 'projects', src.projectId, 'b');
    expect(refs(repo)).toBe(refs(src.inputs.b.repoDir!));
    expect(JSON.parse(readFileSync(join(stateDir, 'sessions', 'locations.json'), 'utf8'))).toEqual({ b: repo });
    expect(readdirSync(join(stateDir, 'sessions', '.file-recovery', 'b'))).toEqual(['1']);
    expect((await store.listProjects()).map((p) => [p.id, p.name])).toContainEqual([src.projectId, 'App']);
    expect(store.getRow('b')!.project).toBe('App');
    // The recovery records work here: undoing the turn takes the agent's file out again.
    await store.undoTurn('b', 1);
    expect(existsSync(join(src.projectDir, 'notes.md'))).toBe(false);
  });

  it('importing again adds nothing; a session that grew gets only its new turn', async () => {
    const src = await source();
    const { store, stateDir } = await target(src.workspace);
    stores.push(store);
    await store.importStateSession(src.inputs.s);
    expect((await store.importStateSession(src.inputs.s)).outcome).toBe('unchanged');
    const grow = await SessionStore.open({ stateDir: src.stateDir, workspaceRoot: src.workspace });
    await grow.appendMessage('s', { id: 'u3', role: 'user', content: 'more' });
    await grow.appendMessage('s', { id: 'a3', role: 'assistant', content: 'sure' });
    await grow.finalizeTurn('s');
    await grow.close();
    const before = git(join(stateDir, 'sessions', 's'), 'rev-list', '--count', 'main');
    expect(await store.importStateSession(src.inputs.s)).toMatchObject({ outcome: 'updated', nodesAdded: 2, turnsAdded: 1 });
    expect(Number(git(join(stateDir, 'sessions', 's'), 'rev-list', '--count', 'main'))).toBe(Number(before) + 1);
    expect((await store.getBranch('s')).map((m) => m.id)).toEqual(['u1', 'a2', 'u3', 'a3']);
    expect((await store.importStateSession(src.inputs.s)).outcome).toBe('unchanged');
  });

  it('verify refuses a repo git fsck finds broken, and a symbolic link in it; nothing stays', async () => {
    const src = await source();
    const { store, stateDir } = await target(src.workspace);
    stores.push(store);
    const blob = git(src.inputs.s.repoDir, 'rev-parse', 'main:meta.json');
    execFileSync('git', ['repack', '-a', '-d', '-q'], { cwd: src.inputs.s.repoDir });
    // Unpack, then delete the one object: fsck must find the hole.
    const pack = readdirSync(join(src.inputs.s.repoDir, '.git', 'objects', 'pack')).find((name) => name.endsWith('.pack'))!;
    const packPath = join(src.inputs.s.repoDir, '.git', 'objects', 'pack', pack);
    const bytes = readFileSync(packPath);
    rmSync(join(src.inputs.s.repoDir, '.git', 'objects', 'pack'), { recursive: true });
    execFileSync('git', ['unpack-objects', '-q'], { cwd: src.inputs.s.repoDir, input: bytes });
    rmSync(join(src.inputs.s.repoDir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    await expect(store.importStateSession(src.inputs.s)).rejects.toThrow(/git fsck of s failed/);
    symlinkSync('/etc/passwd', join(src.inputs.b.repoDir!, 'workdir', 'link'));
    await expect(store.importStateSession(src.inputs.b)).rejects.toThrow(/workdir\/link is a symbolic link/);
    expect(store.hasSession('s') || store.hasSession('b')).toBe(false);
    expect(existsSync(join(stateDir, 'sessions', 's'))).toBe(false);
    expect(readMigrationJournal(join(stateDir, 'sessions')).size).toBe(0);
    expect(readdirSync(join(stateDir, 'sessions', '.migration', 'staging'))).toEqual([]);
  });

  it('objects borrowed from elsewhere (alternates) do not count: the copy alone must be whole', async () => {
    const src = await source();
    const { store } = await target(src.workspace);
    stores.push(store);
    // A repo whose objects live in another one, named by objects/info/alternates.
    const borrower = join(src.stateDir, 'sessions', 'borrow');
    execFileSync('git', ['clone', '-q', '--shared', src.inputs.s.repoDir, borrower]);
    const meta = JSON.parse(readFileSync(join(borrower, 'meta.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(borrower, 'meta.json'), JSON.stringify({ ...meta, id: 'borrow' }));
    execFileSync('git', ['branch', '-q', '-M', 'main'], { cwd: borrower });
    await expect(store.importStateSession({ id: 'borrow', repoDir: borrower, sourceRoot: src.stateDir })).rejects.toThrow(/git fsck of borrow failed/);
    expect(store.hasSession('borrow')).toBe(false);
  });

  it('a repo outside the state directory and the allowed roots is refused', async () => {
    const src = await source();
    const { store } = await target(tempDir('op-other-ws-'));
    stores.push(store);
    await expect(store.importStateSession({ ...src.inputs.s, sourceRoot: tempDir('op-elsewhere-') })).rejects.toThrow(/outside the state directory and the allowed roots/);
  });

  it('a failed publish leaves the project unavailable and new bindings refused, across a restart, until an import succeeds', async () => {
    const src = await source();
    const { store, stateDir } = await target(src.workspace);
    const obstacle = join(stateDir, 'sessions', 'projects', src.projectId, 'b');
    mkdirSync(obstacle, { recursive: true });
    await expect(store.importStateSession(src.inputs.b)).rejects.toThrow(/already in the way/);
    expect(readMigrationJournal(join(stateDir, 'sessions')).get('b')?.step).toBe('failed');
    expect(store.projectMigrationBlock(src.projectId)).toMatch(/project .* is unavailable: moving session b into it failed/);
    await expect(store.createSession({ id: 'new', projectId: src.projectId })).rejects.toThrow(/is unavailable/);
    await store.createSession({ id: 'draft' });
    await expect(store.setSessionProject('draft', src.projectId)).rejects.toThrow(/is unavailable/);
    expect(store.hasSession('b')).toBe(false);
    await store.close();

    const reopened = await SessionStore.open({ stateDir, workspaceRoot: src.workspace });
    stores.push(reopened);
    expect(reopened.startup.migrations.failed).toEqual(['b']);
    await expect(reopened.setSessionProject('draft', src.projectId)).rejects.toThrow(/is unavailable/);
    rmSync(obstacle, { recursive: true });
    expect((await reopened.importStateSession(src.inputs.b)).outcome).toBe('added');
    expect(reopened.projectMigrationBlock(src.projectId)).toBeNull();
    expect((await reopened.setSessionProject('draft', src.projectId)).project).toBe('App');
  });

  it('a secret is taken out of every file and every object; the history keeps its shape', async () => {
    const secret = 'SECRET-12345678901234567890';
    const src = await source(secret);
    const { store, stateDir } = await target(src.workspace);
    stores.push(store);
    store.setRedactor(redactor);
    const result = await store.importStateSession(src.inputs.s);
    expect(result.redacted).toBeGreaterThan(0);
    const repo = join(stateDir, 'sessions', 's');
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: repo }).toString('latin1');
    expect(objects).not.toContain(secret);
    const grep = spawnSync('grep', ['-rl', secret, stateDir], { encoding: 'utf8' });
    expect({ status: grep.status, files: grep.stdout }).toEqual({ status: 1, files: '' });
    expect(git(repo, 'log', '--format=%s', 'main')).toBe(git(src.inputs.s.repoDir, 'log', '--format=%s', 'main').replace(secret, '[REDACTED:test]'));
    expect(refs(repo).split('\n').map((line) => line.split(' ')[1])).toEqual(refs(src.inputs.s.repoDir).split('\n').map((line) => line.split(' ')[1]));
    expect((await store.getBranch('s'))[0]!.content).toMatch(/^hello \[REDACTED:/);
    expect((await store.getSession('s')).redacted).toBe(result.redacted);
  });

  it('a secret is taken out of author lines, files under .git beside the objects, and a Latin-1 file (issue 27 item 8)', async () => {
    const secret = 'SECRET-12345678901234567890';
    const src = await source();
    const from = src.inputs.s.repoDir;
    // A Latin-1 file (not UTF-8: "café" with byte E9) committed by an author whose name and email hold secrets.
    const latin1 = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(` token ${secret} fin\n`)]);
    writeFileSync(join(from, 'workdir', 'notes.txt'), latin1);
    execFileSync('git', ['add', 'workdir/notes.txt'], { cwd: from });
    execFileSync('git', ['commit', '-q', '-m', 'notes'], {
      cwd: from,
      env: { ...process.env, GIT_AUTHOR_NAME: `Dev ${secret}`, GIT_AUTHOR_EMAIL: `${secret}@example.com`, GIT_COMMITTER_NAME: 'OpenProgram', GIT_COMMITTER_EMAIL: 'openprogram@local' },
    });
    // A merge left half-done: its message sits in .git, in no object.
    writeFileSync(join(from, '.git', 'MERGE_MSG'), `Merge branch 'x'\n\nkey ${secret}\n`);
    const { store, stateDir } = await target(src.workspace);
    stores.push(store);
    store.setRedactor(redactor);
    expect((await store.importStateSession(src.inputs.s)).outcome).toBe('added');
    const repo = join(stateDir, 'sessions', 's');
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: repo }).toString('latin1');
    expect(objects).not.toContain(secret);
    const grep = spawnSync('grep', ['-rla', secret, stateDir], { encoding: 'utf8' });
    expect({ status: grep.status, files: grep.stdout }).toEqual({ status: 1, files: '' });
    expect(git(repo, 'log', '-1', '--format=%an <%ae> | %cn <%ce>', 'main')).toBe('Dev [REDACTED:test] <[REDACTED:test]@example.com> | OpenProgram <openprogram@local>');
    expect(readFileSync(join(repo, '.git', 'MERGE_MSG'), 'utf8')).toBe("Merge branch 'x'\n\nkey [REDACTED:test]\n");
    // Still Latin-1, byte for byte but the secret, in the work tree and in the committed blob.
    const expected = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' token [REDACTED:test] fin\n')]);
    expect(readFileSync(join(repo, 'workdir', 'notes.txt'))).toEqual(expected);
    expect(execFileSync('git', ['show', 'main:workdir/notes.txt'], { cwd: repo })).toEqual(expected);
  });
});

const STEPS = ['inventoried', 'staged', 'verified', 'mid-publish', 'published', 'located'] as const;

const WRITER = (stateDir: string, workspace: string, input: StateSessionInput, killAt: string): string => `
  import { SessionStore } from ${JSON.stringify(join(REPO_ROOT, 'lib/store/index.ts'))};
  ${SAY_SOURCE}
  const store = await SessionStore.open({ stateDir: ${JSON.stringify(stateDir)}, workspaceRoot: ${JSON.stringify(workspace)} });
  say({ ready: true });
  say({ begin: 'import' });
  await store.importStateSession(${JSON.stringify(input)}, (step) => {
    if (step === ${JSON.stringify(killAt)}) process.kill(process.pid, 'SIGKILL');
  });
  say({ ack: 'import' });
  await new Promise(() => {});
`;

describe('a kill at each step of the migration, then a restart', () => {
  afterEach(() => cleanupTempDirs());

  for (const step of STEPS) {
    it(`killed after ${step}: ${['inventoried', 'staged'].includes(step) ? 'rolled back, and imported again whole' : 'carried to its end'}`, { timeout: 60_000 }, async () => {
      const src = await source();
      const stateDir = tempDir('op-dst-');
      const script = join(stateDir, 'writer.mts');
      writeFileSync(script, WRITER(stateDir, src.workspace, src.inputs.b, step));
      const run = await runAndKill<string>(script, 30_000);
      expect(run.inFlight).toBe('import');
      const sessions = join(stateDir, 'sessions');
      const store = await SessionStore.open({ stateDir, workspaceRoot: src.workspace });
      try {
        const repo = join(sessions, 'projects', src.projectId, 'b');
        if (step === 'inventoried' || step === 'staged') {
          expect(store.startup.migrations.rolledBack).toEqual(['b']);
          expect(store.hasSession('b')).toBe(false);
          expect(existsSync(repo)).toBe(false);
          expect(store.projectMigrationBlock(src.projectId)).toBeNull();
          expect((await store.importStateSession(src.inputs.b)).outcome).toBe('added');
        } else if (step !== 'located') {
          expect(store.startup.migrations.resumed).toEqual(['b']);
        }
        expect(store.hasSession('b')).toBe(true);
        expect(refs(repo)).toBe(refs(src.inputs.b.repoDir!));
        expect(JSON.parse(readFileSync(join(sessions, 'locations.json'), 'utf8'))).toEqual({ b: repo });
        expect(readdirSync(join(sessions, '.file-recovery', 'b'))).toEqual(['1']);
        expect(readMigrationJournal(sessions).size).toBe(0);
        expect(existsSync(join(sessions, '.migration', 'staging', 'b'))).toBe(false);
        expect((await store.getBranch('b')).map((m) => m.id)).toEqual(['b1', 'b2']);
      } finally {
        await store.close();
      }
    });
  }
});
