import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { manualClock, tempDir, tempDirsPerTest } from '../testing/temp-store.js';
import { REPO_ROOT as ROOT } from '../testing/kill-harness.js';
import { readRegistryOnDisk } from '../testing/registry-on-disk.js';
import { listSegments } from '../registry/registry-log.js';
import type { RegistryEntry } from '../types.js';


/** The registry on disk: index.json with the log replayed (what a reopen finds). */
function readIndex(dir: string): Record<string, RegistryEntry> {
  return readRegistryOnDisk(join(dir, 'sessions'));
}

/** What every session's own files say, in registry terms. */
function registryFromFiles(store: SessionStore): Promise<Record<string, unknown>[]> {
  return Promise.all(
    store.listSessions({ scope: 'all', limit: 200 }).rows.map(async (row) => {
      const detail = await store.getSession(row.id);
      return { id: row.id, updatedAt: detail.updatedAt, preview: detail.preview, title: detail.title, status: detail.status };
    }),
  );
}

describe('start-up', () => {
  const dir = tempDirsPerTest();

  async function seed(stateDir: string): Promise<void> {
    const store = await SessionStore.open({ stateDir });
    for (const id of ['one', 'two']) {
      await store.createSession({ id });
      await store.appendMessage(id, { role: 'user', content: `hello ${id}` });
      await store.appendMessage(id, { role: 'assistant', content: 'hi' });
      await store.finalizeTurn(id);
    }
    await store.setArchived('two', true);
    await store.close();
  }

  for (const [label, content] of [
    ['missing', null],
    ['unparsable', '{"one": {'],
    ['not an object', '[1, 2, 3]'],
    ['null', 'null'],
  ] as const) {
    it(`rebuilds a ${label} index.json from every meta.json`, async () => {
      const stateDir = dir();
      await seed(stateDir);
      const indexPath = join(stateDir, 'sessions', 'index.json');
      const before = readIndex(stateDir);
      if (content === null) execFileSync('rm', [indexPath]);
      else writeFileSync(indexPath, content);
      const store = await SessionStore.open({ stateDir });
      expect(store.startup.rebuilt).toBe(true);
      expect(store.listSessions({ scope: 'all' }).rows.map((row) => row.id).sort()).toEqual(['one', 'two']);
      const after = readIndex(stateDir);
      for (const id of ['one', 'two']) {
        expect(after[id]).toMatchObject({ preview: before[id]!.preview, archived: before[id]!.archived, updated_at: before[id]!.updated_at });
      }
      await store.close();
    });
  }

  it('after a large rebuild, open returns before the snapshot; idle() ends with it, and a crash before it loses nothing', async () => {
    const stateDir = dir();
    const sessionsDir = join(stateDir, 'sessions');
    for (let i = 0; i < 2_500; i++) {
      mkdirSync(join(sessionsDir, `b${i}`, 'history'), { recursive: true });
      writeFileSync(join(sessionsDir, `b${i}`, 'meta.json'), JSON.stringify({ id: `b${i}`, title: `t${i}`, created_at: 1_790_000_000 + i, updated_at: 1_790_000_000 + i, preview: `p${i}` }));
    }
    const indexPath = join(sessionsDir, 'index.json');
    // A writer that creates a session right after open, then dies before any clean stop.
    const script = join(stateDir, 'writer.mts');
    writeFileSync(
      script,
      `import { existsSync } from 'node:fs';
       import { SessionStore } from ${JSON.stringify(join(ROOT, 'lib/store/index.ts'))};
       const store = await SessionStore.open({ stateDir: ${JSON.stringify(stateDir)} });
       const snapshotAtOpen = existsSync(${JSON.stringify(indexPath)});
       await store.createSession({ id: 'after-rebuild', title: 'Logged, not snapshotted' });
       console.log(JSON.stringify({ rebuilt: store.startup.rebuilt, snapshotAtOpen }));
       process.kill(process.pid, 'SIGKILL');`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
    expect(JSON.parse(child.stdout)).toEqual({ rebuilt: true, snapshotAtOpen: false });

    // Whether the killed snapshot got written or not, the reopened registry has everything.
    const store = await SessionStore.open({ stateDir });
    expect(store.countSessions({ scope: 'all' })).toBe(2_501);
    expect((await store.getSession('after-rebuild')).title).toBe('Logged, not snapshotted');
    await store.idle();
    const onDisk = readIndex(stateDir);
    expect(Object.keys(onDisk)).toHaveLength(2_501);
    expect(onDisk['b7']).toMatchObject({ title: 't7', preview: 'p7' });
    await store.close();

    // A second rebuild, in this process: idle() resolves once index.json alone is current.
    execFileSync('rm', [indexPath]);
    const again = await SessionStore.open({ stateDir });
    expect(again.startup.rebuilt).toBe(true);
    await again.idle();
    expect(Object.keys(JSON.parse(readFileSync(indexPath, 'utf8')) as object)).toHaveLength(2_501);
    expect(listSegments(sessionsDir)).toEqual([]);
    await again.close();
  }, 60_000);

  it('rebuilds sessions in the project layout and from locations.json, skipping invalid directories', async () => {
    const stateDir = dir();
    const repo = join(stateDir, 'sessions', 'projects', 'p1', 'ps');
    mkdirSync(join(repo, 'history'), { recursive: true });
    writeFileSync(join(repo, 'meta.json'), JSON.stringify({ id: 'ps', title: 'In a project', project_id: 'p1', created_at: 1, updated_at: 2 }));
    mkdirSync(join(stateDir, 'sessions', 'junk', 'steering'), { recursive: true }); // no meta.json
    mkdirSync(join(stateDir, 'sessions', 'broken'), { recursive: true });
    writeFileSync(join(stateDir, 'sessions', 'broken', 'meta.json'), '{oops');
    const store = await SessionStore.open({ stateDir });
    expect(store.listSessions({ scope: 'all' }).rows.map((row) => [row.id, row.title])).toEqual([['ps', 'In a project']]);
    expect(store.listSessions({ projectId: 'p1' }).rows).toHaveLength(1);
    const locations = JSON.parse(readFileSync(join(stateDir, 'sessions', 'locations.json'), 'utf8')) as Record<string, string>;
    expect(locations['ps']).toBe(repo);
    await store.close();
  });

  it('after SIGKILL during writes, reopens with a registry equal to the sessions\' files and every committed turn', async () => {
    const stateDir = dir();
    const script = join(stateDir, 'writer.mts');
    writeFileSync(
      script,
      `import { SessionStore } from ${JSON.stringify(join(ROOT, 'lib/store/index.ts'))};
       const store = await SessionStore.open({ stateDir: ${JSON.stringify(stateDir)}, debounceMs: 60_000 });
       for (let i = 0; i < 4; i++) {
         const id = 'k' + i;
         await store.createSession({ id });
         await store.appendMessage(id, { role: 'user', content: 'first ' + i });
         await store.appendMessage(id, { role: 'assistant', content: 'reply ' + i });
         await store.finalizeTurn(id);
         // appended after the last registry write: only the files and the journal know
         await store.appendMessage(id, { role: 'user', content: 'latest ' + i });
       }
       await store.updateSession('k1', { title: 'Renamed' });
       await store.appendMessage('k2', { role: 'user', content: 'newest of all' });
       process.kill(process.pid, 'SIGKILL');`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
    expect(child.signal).toBe('SIGKILL');
    const stale = readIndex(stateDir);
    expect(stale['k2']!.preview).not.toBe('newest of all'); // the debounced write never happened

    const store = await SessionStore.open({ stateDir });
    expect(store.startup.reconciled).toContain('k2');
    const rows = store.listSessions({ scope: 'all' }).rows;
    expect(rows[0]!.id).toBe('k2');
    expect(rows.find((row) => row.id === 'k2')!.preview).toBe('newest of all');
    expect(rows.find((row) => row.id === 'k1')!.title).toBe('Renamed');
    for (let i = 0; i < 4; i++) {
      expect(rows.find((row) => row.id === `k${i}`)!.preview).toBe(i === 2 ? 'newest of all' : `latest ${i}`);
      expect((await store.listCommits(`k${i}`)).commits.map((c) => c.message)).toEqual([`turn: first ${i}`, 'session init']);
    }
    // The registry on disk now equals what the files say.
    const fromFiles = await registryFromFiles(store);
    const onDisk = readIndex(stateDir);
    for (const row of fromFiles) {
      expect(Math.round(onDisk[row['id'] as string]!.updated_at * 1000)).toBe(row['updatedAt']);
      expect(onDisk[row['id'] as string]!.preview).toBe(row['preview']);
    }
    await store.close();
  });

  it('removes what a create or delete cut short by a crash left (a directory without meta.json), keeping the rest', async () => {
    const stateDir = dir();
    const first = await SessionStore.open({ stateDir });
    for (const id of ['kept', 'half-deleted', 'half-created']) await first.createSession({ id });
    await first.close();
    const sessions = join(stateDir, 'sessions');
    // As the crash test's SIGKILL left them: delete removes meta.json first; create inits the repo before it.
    rmSync(join(sessions, 'half-deleted', 'meta.json'));
    rmSync(join(sessions, 'half-created', 'meta.json'));
    rmSync(join(sessions, 'half-created', '.git', 'HEAD'));
    writeFileSync(join(sessions, '.index-journal'), 'half-deleted\nhalf-created\n');

    const store = await SessionStore.open({ stateDir });
    expect(store.listSessions({ scope: 'all' }).rows.map((row) => row.id)).toEqual(['kept']);
    expect(existsSync(join(sessions, 'half-deleted'))).toBe(false);
    expect(existsSync(join(sessions, 'half-created'))).toBe(false);
    expect(existsSync(join(sessions, 'kept', 'meta.json'))).toBe(true);
    // The id is free again: creating it makes a whole session.
    await store.createSession({ id: 'half-created' });
    expect(existsSync(join(sessions, 'half-created', 'meta.json'))).toBe(true);
    expect(execFileSync('git', ['-C', join(sessions, 'half-created'), 'log', '--format=%s'], { encoding: 'utf8' }).trim()).toBe('session init');
    await store.close();
  });

  it('resets running sessions to idle in the registry and meta.json', async () => {
    const stateDir = dir();
    const store = await SessionStore.open({ stateDir });
    await store.createSession({ id: 'r' });
    await store.appendMessage('r', { role: 'user', content: 'x' });
    await store.beginTurn('r');
    expect((await store.getSession('r')).status).toBe('running');
    store.flushSync(); // killed without finalize
    const again = await SessionStore.open({ stateDir });
    expect(again.startup.resetRunning).toEqual(['r']);
    expect((await again.getSession('r')).status).toBe('idle');
    expect(JSON.parse(readFileSync(join(stateDir, 'sessions', 'r', 'meta.json'), 'utf8')).status).toBe('idle');
    await again.close();
  });

  it('sweeps an unarchived empty shell at 61 minutes, not at 59, never an archived one', async () => {
    const stateDir = dir();
    const clock = manualClock();
    const store = await SessionStore.open({ stateDir, now: clock.now });
    await store.createSession({ id: 'shell' });
    await store.createSession({ id: 'archived-shell' });
    await store.setArchived('archived-shell', true);
    await store.createSession({ id: 'talked' });
    await store.appendMessage('talked', { role: 'user', content: 'hi' });
    await store.close();

    clock.advance(59 * 60);
    const at59 = await SessionStore.open({ stateDir, now: clock.now });
    expect(at59.startup.sweptShells).toEqual([]);
    await at59.close();

    clock.advance(2 * 60);
    const at61 = await SessionStore.open({ stateDir, now: clock.now });
    expect(at61.startup.sweptShells).toEqual(['shell']);
    expect(existsSync(join(stateDir, 'sessions', 'shell'))).toBe(false);
    expect(at61.listSessions({ scope: 'all' }).rows.map((row) => row.id).sort()).toEqual(['archived-shell', 'talked']);
    await at61.close();

    // Archives never expire, however old.
    clock.advance(10 * 365 * 24 * 3600);
    const later = await SessionStore.open({ stateDir, now: clock.now });
    expect(later.hasSession('archived-shell')).toBe(true);
    await later.close();
  });

  it('keeps a shell that a migration in progress names', async () => {
    const stateDir = dir();
    const clock = manualClock();
    const store = await SessionStore.open({ stateDir, now: clock.now });
    await store.createSession({ id: 'moving' });
    await store.close();
    mkdirSync(join(stateDir, 'sessions', '.migration', 'staging', 'moving'), { recursive: true });
    clock.advance(2 * 3600);
    const again = await SessionStore.open({ stateDir, now: clock.now });
    expect(again.startup.sweptShells).toEqual([]);
    await again.close();
  });

  it('ignores a locations.json entry pointing outside, and never deletes it', async () => {
    const stateDir = dir();
    const outside = dir();
    const victim = join(outside, 'victim');
    mkdirSync(join(victim, 'history'), { recursive: true });
    writeFileSync(join(victim, 'meta.json'), JSON.stringify({ id: 'victim', title: 'not yours' }));
    mkdirSync(join(stateDir, 'sessions'), { recursive: true });
    writeFileSync(join(stateDir, 'sessions', 'locations.json'), JSON.stringify({ victim }));
    writeFileSync(join(stateDir, 'sessions', 'index.json'), JSON.stringify({ victim: { id: 'victim', title: 'x', created_at: 1, updated_at: 1 } }));
    const store = await SessionStore.open({ stateDir });
    // The entry is listed from the registry, but its repo is looked for only inside the state dir.
    await expect(store.getBranch('victim')).rejects.toThrow(/unknown session/);
    await store.deleteSession('victim');
    expect(existsSync(join(victim, 'meta.json'))).toBe(true);
    expect(JSON.parse(readFileSync(join(stateDir, 'sessions', 'locations.json'), 'utf8'))).toEqual({ victim });
    await store.close();
    // A rebuild does not adopt it either.
    writeFileSync(join(stateDir, 'sessions', 'index.json'), 'garbage');
    const rebuilt = await SessionStore.open({ stateDir });
    expect(rebuilt.hasSession('victim')).toBe(false);
    await rebuilt.close();
  });

  it('writes append-path changes at most once per debounce window, and everything on close', async () => {
    const stateDir = dir();
    const store = await SessionStore.open({ stateDir, debounceMs: 60_000 });
    await store.createSession({ id: 'd' });
    const writes = store.internals.registryWrites;
    for (let i = 0; i < 20; i++) await store.appendMessage('d', { role: 'user', content: `m${i}` });
    expect(store.internals.registryWrites).toBe(writes);
    expect(readIndex(stateDir)['d']!.preview).toBeNull();
    await store.close();
    expect(readIndex(stateDir)['d']!.preview).toBe('m19');
    expect(existsSync(join(stateDir, 'sessions', '.index-journal'))).toBe(false);
  });
});

describe('registry writes', () => {
  it('coalesce: concurrent immediate writes end with the newest state on disk, in fewer writes than requests', async () => {
    const temp = tempDir();
    try {
      const store = await SessionStore.open({ stateDir: temp.dir });
      for (let i = 0; i < 10; i++) await store.createSession({ id: `w${i}` });
      const start = store.internals.registryWrites;
      // Different sessions do not wait on each other, so their writes overlap and coalesce.
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.updateSession(`w${i}`, { title: `title ${i}` })));
      const index = readIndex(temp.dir);
      for (let i = 0; i < 10; i++) expect(index[`w${i}`]!.title).toBe(`title ${i}`);
      expect(store.internals.registryWrites - start).toBeLessThan(10);
      await store.close();
    } finally {
      temp.cleanup();
    }
  });
});
