import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MoveEngine, type MoveEngineOptions } from './engine.js';
import { MoveError } from './ports.js';
import { headsOf } from './repos.js';
import { rsyncUser, type CopyReport } from './rsync.js';
import { seedUser, twoInstances, USER, type TwoInstances } from './testing/fixture.js';
import { UserFrozenError } from './user-gate.js';
import { verifyUserCopy } from './verify.js';

describe('MoveEngine', () => {
  let world: TwoInstances;
  afterEach(async () => {
    await world.a.closeAll();
    await world.b.closeAll();
    rmSync(world.root, { recursive: true, force: true });
  });

  const engine = (copy: MoveEngineOptions['copy'] = rsyncUser, steps: string[] = []) =>
    new MoveEngine({
      directory: world.directory,
      journal: world.journal,
      control: async (id) => (id === 'a' ? world.a : world.b).control(),
      copy,
      onProgress: ({ step, phase }) => steps.push(`${phase} ${step}`),
    });

  it('moves a user: every step in order, the copy verified, the owner flipped at the next epoch, the source emptied', async () => {
    world = twoInstances();
    const { sessions } = await seedUser(world.a);
    const before = await headsOf(world.a.dataDir, USER);
    const steps: string[] = [];
    const move = await engine(rsyncUser, steps).start(USER, 'b');
    expect(steps).toEqual(['precopy', 'freeze', 'final-copy', 'verify', 'flip', 'cleanup'].flatMap((step) => [`start ${step}`, `done ${step}`]));
    expect(move.status).toBe('done');
    expect(await world.directory.owner(USER)).toEqual({ shard: 'b', epoch: 2, state: 'active' });
    expect(existsSync(join(world.a.dataDir, 'users', USER))).toBe(false);
    expect(world.a.gate.availability(USER)).toEqual({ kind: 'moved', owner: { id: 'b', url: 'http://127.0.0.1:2', epoch: 2 } });
    const report = await verifyUserCopy(world.b.dataDir, USER, before);
    expect(report).toMatchObject({ ok: true, sessions: 2, problems: [] });
    // The project's session is found on the target: its paths name the target's data directory.
    const store = await world.b.store(USER);
    expect(store.listSessions({ scope: 'all' }).rows.map((row) => row.id).sort()).toEqual([...sessions].sort());
    expect((await store.getBranch(sessions[1]!)).map((message) => JSON.stringify(message))).toEqual(expect.arrayContaining([expect.stringContaining('project message 2')]));
    // The target continues the source's event ids.
    expect(world.b.events.get(USER)).toMatchObject({ boot: 'boota', seq: 1 });
    expect(world.journal.get(move.id)).toMatchObject({ status: 'done', step: 'cleanup' });
    // The freeze was timed by this run's flip (the bench's move_freeze_ms_1k), and kept in the journal.
    expect(move.freezeMs).toEqual(expect.any(Number));
    expect(world.journal.get(move.id)!.freezeMs).toBe(move.freezeMs);
  });

  it('refuses writes from the freeze on, after waiting for the one still running', async () => {
    world = twoInstances();
    await seedUser(world.a);
    const leave = world.a.gate.enterWrite(USER);
    let frozen = false;
    const freezing = world.a.control().freeze(USER, 'move1234').then(() => (frozen = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(frozen).toBe(false);
    expect(() => world.a.gate.enterWrite(USER)).toThrow(UserFrozenError);
    leave();
    await freezing;
    expect(frozen).toBe(true);
    // Durable: an instance restarted on the data directory is still frozen.
    const { UserGate } = await import('./user-gate.js');
    expect(new UserGate(world.a.dataDir).availability(USER)).toMatchObject({ kind: 'frozen', moveId: 'move1234' });
  });

  it('fails at verify when the copy is damaged; the roll-back leaves the user writable on the source alone', async () => {
    world = twoInstances();
    await seedUser(world.a);
    const damaging = async (from: string, to: string, userId: string, options: { final: boolean }) => {
      await rsyncUser(from, to, userId, options);
      if (!options.final) return;
      const objects = join(to, 'users', userId, 'sessions');
      const repo = readdirSync(objects).find((name) => /^[0-9a-f]{16}$/.test(name))!;
      const headRef = join(objects, repo, '.git', 'refs', 'heads', 'main');
      writeFileSync(headRef, '0123456789012345678901234567890123456789\n');
    };
    const moves = engine(damaging);
    await expect(moves.start(USER, 'b')).rejects.toThrow(/verify on b failed: heads: .* differs|fsck/);
    const failed = world.journal.openMoveOf(USER)!;
    expect(failed).toMatchObject({ status: 'failed', step: 'verify' });
    expect(() => world.a.gate.enterWrite(USER)).toThrow(UserFrozenError);
    await expect(moves.start(USER, 'b')).rejects.toThrow(/has not ended: resume or roll it back/);
    const rolledBack = await moves.rollback(failed.id);
    expect(rolledBack.status).toBe('rolled-back');
    expect(existsSync(join(world.b.dataDir, 'users', USER))).toBe(false);
    expect(await world.directory.owner(USER)).toEqual({ shard: 'a', epoch: 1, state: 'active' });
    world.a.gate.enterWrite(USER)();
  });

  it('times the freeze from the freeze request, the wait for a running write included, to the flip', async () => {
    world = twoInstances();
    await seedUser(world.a);
    // A clock that moves only when the test says: the write the freeze waits for takes 5 s,
    // the final copy 0.7 s; nothing else takes any time.
    let clock = 1_000_000;
    const finishWrite = world.a.gate.enterWrite(USER);
    const slowFinalCopy = async (from: string, to: string, userId: string, options: { final: boolean }) => {
      await rsyncUser(from, to, userId, options);
      if (options.final) clock += 700;
    };
    const moves = new MoveEngine({
      directory: world.directory,
      journal: world.journal,
      control: async (id) => (id === 'a' ? world.a : world.b).control(),
      copy: slowFinalCopy,
      now: () => clock,
      onProgress: ({ step, phase }) => {
        if (step !== 'freeze' || phase !== 'start') return;
        setTimeout(() => {
          clock += 5_000;
          finishWrite();
        }, 30);
      },
    });
    const move = await moves.start(USER, 'b');
    expect(move.status).toBe('done');
    expect(move.freezeMs).toBe(5_700);
    expect(world.journal.get(move.id)).toMatchObject({ freezeMs: 5_700, freezeRequestedAt: 1_000_000 });
  });

  it('refuses a move to where the user is, to an unknown instance, of an unknown user, and a roll-back after the flip', async () => {
    world = twoInstances();
    await seedUser(world.a);
    const moves = engine();
    await expect(moves.start(USER, 'a')).rejects.toThrow(/already on a/);
    await expect(moves.start(USER, 'c')).rejects.toThrow(/no instance c/);
    await expect(moves.start('fedcba9876543210', 'b')).rejects.toThrow(MoveError);
    const done = await moves.start(USER, 'b');
    await expect(moves.rollback(done.id)).rejects.toThrow(/has ended/);
    expect(world.journal.list()).toHaveLength(1);
  });
});

describe('MoveEngine, a user with no data yet', () => {
  it('moves a user who never wrote anything (no folder on the source)', async () => {
    const { twoInstances: make } = await import('./testing/fixture.js');
    const world = make();
    try {
      const engine = new MoveEngine({ directory: world.directory, journal: world.journal, control: async (id) => (id === 'a' ? world.a : world.b).control() });
      expect((await engine.start(USER, 'b')).status).toBe('done');
      expect(await world.directory.owner(USER)).toEqual({ shard: 'b', epoch: 2, state: 'active' });
    } finally {
      await world.a.closeAll();
      await world.b.closeAll();
      rmSync(world.root, { recursive: true, force: true });
    }
  });
});

describe('MoveEngine, the fsck split between the pre-copy and the freeze', () => {
  let world: TwoInstances;
  afterEach(async () => {
    await world.a.closeAll();
    await world.b.closeAll();
    rmSync(world.root, { recursive: true, force: true });
  });

  /** The key (as in headsOf) of a session's repository. */
  async function repoOf(sessionId: string): Promise<string> {
    const key = Object.keys(await headsOf(world.a.dataDir, USER)).find((repo) => repo.includes(sessionId));
    expect(key).toBeDefined();
    return key!;
  }

  /**
   * A copy that, after the pre-copy, commits to `sessionId`'s repository on the source (a write
   * the final copy must carry). A commit of git's own: the store writes a message to the
   * session's history/ first and commits it later, and only `.git` matters here.
   */
  function writingAfterPrecopy(sessionId: string, then?: (report: CopyReport) => Promise<void> | void) {
    return async (from: string, to: string, userId: string, options: { final: boolean }): Promise<CopyReport> => {
      const report = await rsyncUser(from, to, userId, options);
      if (!options.final) {
        const repo = join(world.a.dataDir, await repoOf(sessionId));
        const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
        git('update-ref', 'HEAD', git('commit-tree', 'HEAD^{tree}', '-p', 'HEAD', '-m', 'written after the pre-copy'));
      } else await then?.(report);
      return report;
    };
  }

  const engineWith = (copy: NonNullable<ConstructorParameters<typeof MoveEngine>[0]['copy']>) =>
    new MoveEngine({ directory: world.directory, journal: world.journal, control: async (id) => (id === 'a' ? world.a : world.b).control(), copy });

  it('fscks inside the freeze only the repository the final copy wrote; the rest were clean at the pre-copy', async () => {
    world = twoInstances();
    const { sessions } = await seedUser(world.a);
    const written = await repoOf(sessions[0]!);
    const move = await engineWith(writingAfterPrecopy(sessions[0]!)).start(USER, 'b');
    expect(move.status).toBe('done');
    const repos = Object.keys(await headsOf(world.b.dataDir, USER)).sort();
    expect(repos.length).toBeGreaterThanOrEqual(3);
    expect(move.precopyClean?.slice().sort()).toEqual(repos);
    expect(move.finalCopyChanged).toEqual([written]);
    expect(move.verified).toEqual({ repos: repos.length, fscked: 1 });
  });

  it('still fails the verify on a corrupted object in a repository the final copy wrote', async () => {
    world = twoInstances();
    const { sessions } = await seedUser(world.a);
    const written = await repoOf(sessions[0]!);
    const corrupt = async (report: CopyReport): Promise<void> => {
      expect(report.changedRepos).toContain(written);
      // The commit the append made is a loose object the final copy sent: garble it on the target.
      const headRef = readFileSync(join(world.b.dataDir, written, '.git', 'HEAD'), 'utf8').replace(/^ref: /, '').trim();
      const head = (await headsOf(world.b.dataDir, USER))[written]![headRef]!;
      const object = join(world.b.dataDir, written, '.git', 'objects', head.slice(0, 2), head.slice(2));
      expect(existsSync(object)).toBe(true);
      chmodSync(object, 0o644);
      writeFileSync(object, 'not a zlib stream');
    };
    await expect(engineWith(writingAfterPrecopy(sessions[0]!, corrupt)).start(USER, 'b')).rejects.toThrow(/verify on b failed: .*fsck/);
    expect(world.journal.openMoveOf(USER)).toMatchObject({ status: 'failed', step: 'verify', verified: { fscked: 1 } });
  });

  it('fscks every repository when a final copy is run again (what the cut-off one wrote is unknown)', async () => {
    world = twoInstances();
    const { sessions } = await seedUser(world.a);
    let finals = 0;
    const cutOff = writingAfterPrecopy(sessions[0]!, () => {
      if (++finals === 1) throw new Error('cut off after the transfer');
    });
    const moves = engineWith(cutOff);
    await expect(moves.start(USER, 'b')).rejects.toThrow(/cut off/);
    const failed = world.journal.openMoveOf(USER)!;
    expect(failed).toMatchObject({ step: 'final-copy', finalCopyStarted: true });
    // The second final copy sends nothing: only the journal knows the first one wrote.
    const move = await moves.resume(failed.id);
    expect(move.status).toBe('done');
    expect(move.finalCopyChanged).toBeUndefined();
    expect(move.verified?.fscked).toBe(move.verified?.repos);
  });

  it('fscks every repository when the pre-copy was not checked (a journal from before the check)', async () => {
    world = twoInstances();
    const { sessions } = await seedUser(world.a);
    const moves = engineWith(writingAfterPrecopy(sessions[0]!));
    const record = await moves.begin(USER, 'b');
    // An old mover's journal: the pre-copy done, no check recorded, cut off at the freeze.
    await rsyncUser(world.a.dataDir, world.b.dataDir, USER, { final: false });
    await world.directory.setState(USER, 'moving', record.epoch);
    world.journal.save({ ...record, step: 'freeze', finished: [{ step: 'precopy', at: record.startedAt, ms: 0 }] });
    const move = await moves.resume(record.id);
    expect(move.status).toBe('done');
    expect(move.precopyClean).toBeUndefined();
    expect(move.verified?.fscked).toBe(move.verified?.repos);
  });
});
