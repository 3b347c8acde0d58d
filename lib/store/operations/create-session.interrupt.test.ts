import { cpSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SessionStore } from '../session-store.js';
import { openProjectStore, storesClosedAfterEach, tempDir } from '../testing/project-repos.js';

// The points a crash can cut a create at (498c5df and the project layout): the repo is on disk
// but not its meta.json ('repo'), or meta.json too but not its location nor registry entry
// ('meta'). The hook runs there, once, for the session whose directory ends in `at.id`.
const at = vi.hoisted(() => ({ id: '', point: '' as '' | 'repo' | 'meta', hook: null as null | (() => Promise<void> | void) }));
vi.mock('../repo/session-git.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../repo/session-git.js')>();
  return {
    ...original,
    initSessionRepo: async (...args: Parameters<typeof original.initSessionRepo>) => {
      const oid = await original.initSessionRepo(...args);
      const hook = at.hook;
      if (hook && at.point === 'repo' && args[0].endsWith(`/${at.id}`)) {
        at.hook = null;
        await hook();
      }
      return oid;
    },
  };
});
vi.mock('../repo/session-files.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../repo/session-files.js')>();
  return {
    ...original,
    writeMeta: (...args: Parameters<typeof original.writeMeta>) => {
      original.writeMeta(...args);
      const hook = at.hook;
      if (hook && at.point === 'meta' && args[0].endsWith(`/${at.id}`)) {
        at.hook = null;
        void hook(); // synchronous below: the copy is taken before writeMeta returns
      }
    },
  };
});

/** Session directories: sessions/<sid> and sessions/projects/<pid>/<sid> (not the store's dot files). */
function sessionDirs(sessionsDir: string): string[] {
  const dirs = (parent: string) =>
    existsSync(parent) ? readdirSync(parent, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name) : [];
  const found = dirs(sessionsDir).filter((name) => name !== 'projects');
  for (const project of dirs(join(sessionsDir, 'projects'))) found.push(...dirs(join(sessionsDir, 'projects', project)));
  return found.sort();
}

describe('create_session interrupted by a crash', () => {
  const stores = storesClosedAfterEach();

  for (const where of ['Home', 'a project'] as const) {
    for (const point of ['repo', 'meta'] as const) {
      it(`in ${where}, ${point === 'repo' ? 'its repo made, no meta.json yet' : 'meta.json written, no registry entry yet'}: start-up lists exactly the session directories left`, async () => {
        const { store, stateDir, workspace, project } = await openProjectStore();
        stores.push(store);
        const projectId = where === 'Home' ? undefined : project.id;
        const image = join(tempDir('em-image-'), 'state');
        at.id = 'victim';
        at.point = point;
        at.hook =
          point === 'repo'
            ? async () => {
                // Another create finishes (its registry write settles the journal), then the
                // process "dies": the state directory as it is now is what a SIGKILL would leave.
                await store.createSession({ id: 'other', projectId });
                cpSync(stateDir, image, { recursive: true });
              }
            : () => cpSync(stateDir, image, { recursive: true });
        await store.createSession({ id: 'victim', projectId });
        expect(at.hook).toBeNull(); // the interruption point was reached

        // The image goes back in place of the state directory (locations.json holds absolute paths).
        await store.close();
        stores.pop();
        rmSync(stateDir, { recursive: true, force: true });
        cpSync(image, stateDir, { recursive: true });
        const victimDir = where === 'Home' ? join(stateDir, 'sessions', 'victim') : join(stateDir, 'sessions', 'projects', project.id, 'victim');
        expect(existsSync(join(victimDir, '.git'))).toBe(true);
        expect(existsSync(join(victimDir, 'meta.json'))).toBe(point === 'meta');
        const reopened = await SessionStore.open({ stateDir, workspaceRoot: workspace });
        stores.push(reopened);
        const listed = reopened
          .listSessions({ scope: 'all', limit: 10, cursor: null })
          .rows.map((row) => row.id)
          .sort();
        // Without meta.json the directory is no session and start-up removes it; with meta.json
        // the session is whole and start-up lists it. Either way no unlisted directory stays to
        // hold the id's place (it did when start-up looked only at sessions/<sid>).
        expect(listed).toEqual(point === 'repo' ? ['other'] : ['victim']);
        expect(sessionDirs(join(stateDir, 'sessions'))).toEqual(listed);
        if (point === 'meta') expect((await reopened.getSession('victim')).projectId).toBe(projectId ?? 'default');
        else expect((await reopened.createSession({ id: 'victim', projectId })).created).toBe(true);
      });
    }
  }

  it('a create that fails once its location is saved (a full disk) leaves no location and no folder: the same id in Home lands in Home, also after a restart', async () => {
    const { store, stateDir, workspace, project } = await openProjectStore();
    stores.push(store);
    at.id = 'victim';
    at.point = 'repo';
    at.hook = () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    await expect(store.createSession({ id: 'victim', projectId: project.id })).rejects.toThrow(/ENOSPC/);
    expect(existsSync(join(stateDir, 'sessions', 'projects', project.id, 'victim'))).toBe(false);
    expect(readFileSync(join(stateDir, 'sessions', 'locations.json'), 'utf8')).not.toContain('victim');
    expect((await store.createSession({ id: 'victim' })).created).toBe(true);
    expect(existsSync(join(stateDir, 'sessions', 'victim', 'meta.json'))).toBe(true);
    await store.close();
    stores.pop();
    const reopened = await SessionStore.open({ stateDir, workspaceRoot: workspace });
    stores.push(reopened);
    expect((await reopened.getSession('victim')).projectId).toBe('default');
  });
});
