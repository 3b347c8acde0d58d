import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileShardDirectory } from '../file-directory.js';
import { MoveJournal } from '../journal.js';
import { LocalInstance } from './local-instance.js';

export const USER = '0123456789abcdef';

export interface TwoInstances {
  root: string;
  a: LocalInstance;
  b: LocalInstance;
  directory: FileShardDirectory;
  journal: MoveJournal;
}

/** Two data directories on one machine, a directory naming both, the user on `a`. */
export function twoInstances(root = mkdtempSync(join(tmpdir(), 'em-move-'))): TwoInstances {
  const a = new LocalInstance('a', join(root, 'a'));
  const b = new LocalInstance('b', join(root, 'b'));
  const directory = new FileShardDirectory(join(root, 'directory.json'));
  directory.addInstance('a', 'http://127.0.0.1:1');
  directory.addInstance('b', 'http://127.0.0.1:2');
  directory.place(USER, 'a');
  return { root, a, b, directory, journal: new MoveJournal(join(root, 'moves')) };
}

/** The user's data on an instance: a plain session with messages and a project session whose project has a repo. */
export async function seedUser(instance: LocalInstance, userId = USER): Promise<{ sessions: string[] }> {
  const store = await instance.store(userId);
  const projectDir = join(instance.dataDir, 'workspaces', userId, 'notes');
  mkdirSync(projectDir, { recursive: true });
  const project = await store.createProject(projectDir, 'notes');
  const { row: plain } = await store.createSession({});
  const { row: inProject } = await store.createSession({ projectId: project.id });
  for (let i = 0; i < 3; i++) {
    await store.appendMessage(plain.id, { role: 'user', content: `message ${i}` });
    await store.appendMessage(inProject.id, { role: 'user', content: `project message ${i}` });
  }
  instance.publish(userId, 'session_updated');
  return { sessions: [plain.id, inProject.id] };
}
