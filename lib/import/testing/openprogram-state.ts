import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SessionStore } from '../../store/index.js';

/**
 * An OpenProgram state directory for the tests, written by our own store (the same format as
 * OpenProgram's, FORMAT.md): `plain` (two turns, a tool call, an attachment), `fork` (a retried
 * reply: two branches), and `bound`, bound to the git project "App" with one agent turn that
 * wrote a file (so it has recovery records). `legacy` moves `bound` to the seeds' older place,
 * `<project>/.openprogram/sessions/<sid>` (recovery beside it), named by locations.json.
 */
export interface OpenProgramState {
  stateDir: string;
  /** the project folder of `bound` */
  projectDir: string;
  projectId: string;
  /** the repo folder of `bound` in the state directory's layout */
  boundRepo: string;
  ids: { plain: string; fork: string; bound: string };
}

export interface OpenProgramStateOptions {
  legacy?: boolean;
  /** planted in the first user message of `plain` */
  secret?: string;
  /** where the project folder `app` goes (default `<root>/work`): e.g. the importing user's workspace */
  workspace?: string;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test User', '-c', 'user.email=user@example.com', ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' } as unknown as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
}

/** `root` holds `state/` (the state directory) and `work/app` (the project, unless `workspace` says elsewhere); both are made. */
export async function makeOpenProgramState(root: string, options: OpenProgramStateOptions = {}): Promise<OpenProgramState> {
  const stateDir = join(root, 'state');
  const workspace = options.workspace ?? join(root, 'work');
  const projectDir = join(workspace, 'app');
  mkdirSync(projectDir, { recursive: true });
  git(projectDir, 'init', '-q', '--initial-branch=main');
  writeFileSync(join(projectDir, 'README.md'), 'hello\n');
  git(projectDir, 'add', '-A');
  git(projectDir, 'commit', '-q', '-m', 'user: initial');

  const ids = { plain: 'op-plain', fork: 'op-fork', bound: 'op-bound' };
  const store = await SessionStore.open({ stateDir, workspaceRoot: workspace });
  try {
    await store.createSession({ id: ids.plain });
    await store.beginTurn(ids.plain);
    await store.saveAttachment(ids.plain, { name: 'notes.txt', data: Buffer.from('attached notes\n') });
    await store.appendMessage(ids.plain, { id: 'p1', role: 'user', content: `What files are in src?${options.secret ? ` my key is ${options.secret}` : ''} [attachment: notes.txt]` });
    await store.appendMessage(ids.plain, { id: 'p2', role: 'assistant', content: 'Let me look.' });
    await store.appendMessage(ids.plain, { id: 'p3', role: 'tool', name: 'list_dir', input: { path: 'src' }, content: '["a.ts","b.ts"]', calledBy: 'p2' });
    await store.finalizeTurn(ids.plain);
    await store.beginTurn(ids.plain);
    await store.appendMessage(ids.plain, { id: 'p4', role: 'user', content: 'And in test?' });
    await store.appendMessage(ids.plain, { id: 'p5', role: 'assistant', content: 'Nothing there.' });
    await store.finalizeTurn(ids.plain);

    await store.createSession({ id: ids.fork });
    await store.beginTurn(ids.fork);
    await store.appendMessage(ids.fork, { id: 'f1', role: 'user', content: 'Pick a colour' });
    await store.appendMessage(ids.fork, { id: 'f2', role: 'assistant', content: 'Blue' });
    await store.finalizeTurn(ids.fork);
    const { parentId } = await store.retry(ids.fork, 'f2');
    await store.beginTurn(ids.fork);
    await store.appendMessage(ids.fork, { id: 'f3', role: 'assistant', content: 'Green', parentId });
    await store.finalizeTurn(ids.fork);

    const project = await store.createProject(projectDir, 'App');
    await store.createSession({ id: ids.bound, projectId: project.id });
    await store.beginTurn(ids.bound);
    await store.appendMessage(ids.bound, { id: 'b1', role: 'user', content: 'please write notes.md' });
    await store.snapshotBeforeEdit(ids.bound, 'notes.md');
    writeFileSync(join(projectDir, 'notes.md'), 'agent notes\n');
    await store.appendMessage(ids.bound, { id: 'b2', role: 'assistant', content: 'done' });
    await store.finalizeTurn(ids.bound, { writtenPaths: ['notes.md'], model: 'test-model' });
    await store.flush();

    let boundRepo = join(stateDir, 'sessions', 'projects', project.id, ids.bound);
    if (options.legacy) {
      const legacy = join(projectDir, '.openprogram', 'sessions', ids.bound);
      mkdirSync(dirname(legacy), { recursive: true });
      renameSync(boundRepo, legacy);
      mkdirSync(join(dirname(legacy), '.file-recovery'), { recursive: true });
      renameSync(join(stateDir, 'sessions', '.file-recovery', ids.bound), join(dirname(legacy), '.file-recovery', ids.bound));
      const locations = JSON.parse(readFileSync(join(stateDir, 'sessions', 'locations.json'), 'utf8')) as Record<string, string>;
      locations[ids.bound] = legacy;
      writeFileSync(join(stateDir, 'sessions', 'locations.json'), JSON.stringify(locations, null, 2));
      boundRepo = legacy;
    }
    return { stateDir, projectDir, projectId: project.id, boundRepo, ids };
  } finally {
    await store.close();
  }
}

/** One more turn in a session of the state directory (written by our store, as OpenProgram would). */
export async function growSession(state: OpenProgramState, sessionId: string, user: string, reply: string): Promise<void> {
  const store = await SessionStore.open({ stateDir: state.stateDir, workspaceRoot: dirname(state.projectDir) });
  try {
    await store.beginTurn(sessionId);
    await store.appendMessage(sessionId, { role: 'user', content: user });
    await store.appendMessage(sessionId, { role: 'assistant', content: reply });
    await store.finalizeTurn(sessionId);
  } finally {
    await store.close();
  }
}
