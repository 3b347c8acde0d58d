import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStore } from '../../lib/store/index.js';
import { makeRepo } from '../../lib/store/testing/project-repos.js';
import { run } from '../main.js';

/**
 * For CLI tests on a data directory no server holds: its first user (an admin, added by the
 * CLI), the folder `app` of that user's workspace as the project "App", a session `s` in it.
 * The store is open: close it before the CLI opens the directory.
 */
export async function dataDirProject(data: string) {
  const out: string[] = [];
  const code = await run(['--data', data, 'users', 'add', 'admin@project.test', '--password', 'a long password', '--admin', '--json'], { out: (line) => out.push(line), err: (line) => out.push(line) }, {} as NodeJS.ProcessEnv);
  if (code !== 0) throw new Error(`users add failed: ${out.join('\n')}`);
  const userId = (JSON.parse(out.join('\n')) as { id: string }).id;
  const workspace = join(data, 'workspaces', userId);
  mkdirSync(join(workspace, 'app'), { recursive: true });
  const projectDir = makeRepo({ 'README.md': 'hello\n' }, join(workspace, 'app'));
  const store = await SessionStore.open({ stateDir: join(data, 'users', userId), workspaceRoot: workspace });
  const project = await store.createProject(projectDir, 'App');
  await store.createSession({ id: 's', projectId: project.id });
  return { store, projectDir, project };
}
