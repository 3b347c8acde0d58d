import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SessionStore } from '../session-store.js';
import { tempDirsPerTest, tempStoresPerTest } from '../testing/temp-store.js';

// The point 498c5df covers: a create's repo is on disk, its meta.json and registry entry are
// not yet, and meanwhile another session's registry write settles the journal. The hook runs
// there, once, for the session named in `at.id`.
const at = vi.hoisted(() => ({ id: '', hook: null as null | (() => Promise<void>) }));
vi.mock('../repo/session-git.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../repo/session-git.js')>();
  return {
    ...original,
    initSessionRepo: async (...args: Parameters<typeof original.initSessionRepo>) => {
      const oid = await original.initSessionRepo(...args);
      const hook = at.hook;
      if (hook && args[0].endsWith(at.id)) {
        at.hook = null;
        await hook();
      }
      return oid;
    },
  };
});

/** Session directories under sessions/ (not the store's own dot files, not projects/). */
function sessionDirs(sessionsDir: string): string[] {
  return readdirSync(sessionsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'projects')
    .map((entry) => entry.name);
}

describe('create_session interrupted while its repo is being made', () => {
  const open = tempStoresPerTest();
  const scratch = tempDirsPerTest();

  it('a crash there, after another session was created, leaves nothing start-up does not clear', async () => {
    const { store, dir } = await open();
    const image = join(scratch(), 'state');
    at.id = 'victim';
    at.hook = async () => {
      // Another create finishes (its registry write settles the journal), then the process "dies":
      // the state directory as it is now is what a SIGKILL would leave.
      await store.createSession({ id: 'other' });
      cpSync(dir, image, { recursive: true });
    };
    await store.createSession({ id: 'victim' });
    expect(at.hook).toBeNull(); // the interruption point was reached

    // The image has victim's repo without meta.json. Start-up must know to look at it: the id was
    // still in the journal, so the leftover is removed; without that it stays, an unlisted
    // directory holding the id's place.
    expect(existsSync(join(image, 'sessions', 'victim', '.git'))).toBe(true);
    expect(existsSync(join(image, 'sessions', 'victim', 'meta.json'))).toBe(false);
    const reopened = await SessionStore.open({ stateDir: image });
    try {
      const listed = reopened.listSessions({ scope: 'all', limit: 10, cursor: null }).rows.map((row) => row.id);
      expect(listed).toEqual(['other']);
      expect(sessionDirs(join(image, 'sessions')).sort()).toEqual(['other']);
      // and the id is usable again
      expect((await reopened.createSession({ id: 'victim' })).created).toBe(true);
    } finally {
      await reopened.close();
    }
  });
});
