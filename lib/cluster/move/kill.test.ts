import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../store/testing/kill-harness.js';
import { MoveEngine } from './engine.js';
import { MOVE_STEPS, type MoveStep } from './journal.js';
import type { RepoHeads } from './ports.js';
import { headsOf } from './repos.js';
import { seedUser, twoInstances, USER, type TwoInstances } from './testing/fixture.js';
import { verifyUserCopy } from './verify.js';

const CHILD = join(import.meta.dirname, 'testing', 'mover-child.ts');

function runKilledMover(root: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { cwd: REPO_ROOT, env: { ...process.env, MOVE_ROOT: root, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the mover was not killed (${code}): ${output}`))));
  });
}

/** The user is complete on exactly one instance, writable, at the epoch the directory names. */
async function expectOnExactlyOne(world: TwoInstances, owner: 'a' | 'b', heads: RepoHeads): Promise<void> {
  const row = await world.directory.owner(USER);
  expect(row).toEqual({ shard: owner, epoch: owner === 'a' ? 1 : 2, state: 'active' });
  const [home, other] = owner === 'a' ? [world.a, world.b] : [world.b, world.a];
  expect(await verifyUserCopy(home.dataDir, USER, heads)).toMatchObject({ ok: true, sessions: 2 });
  expect(home.gate.availability(USER)).toEqual({ kind: 'serve' });
  expect(existsSync(join(other.dataDir, 'users', USER))).toBe(false);
  if (owner === 'b') expect(other.gate.availability(USER)).toMatchObject({ kind: 'moved', owner: { id: 'b', epoch: 2 } });
}

describe('a SIGKILL of the mover (and the instances with it) at every step', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  /** Seed, kill the mover as told, then reopen everything from disk as a restarted mover would. */
  async function killed(env: Record<string, string>): Promise<{ world: TwoInstances; heads: RepoHeads; engine: MoveEngine; moveId: string; step: MoveStep }> {
    const root = mkdtempSync(join(tmpdir(), 'em-move-kill-'));
    roots.push(root);
    const seeded = twoInstances(root);
    await seedUser(seeded.a);
    await seeded.a.closeAll();
    const heads = await headsOf(seeded.a.dataDir, USER);
    await runKilledMover(root, env);
    const world = twoInstances(root);
    const engine = new MoveEngine({ directory: world.directory, journal: world.journal, control: async (id) => (id === 'a' ? world.a : world.b).control() });
    const record = world.journal.list()[0]!;
    return { world, heads, engine, moveId: record.id, step: record.step };
  }

  for (const step of MOVE_STEPS) {
    it(`as ${step} begins: a resume finishes the move on the target`, async () => {
      const { world, heads, engine, moveId, step: cut } = await killed({ KILL: `start:${step}` });
      expect(cut).toBe(step);
      expect((await engine.resume(moveId)).status).toBe('done');
      await expectOnExactlyOne(world, 'b', heads);
    });
  }

  // Inside each step, right after one of its operations took effect (copy-1 is the pre-copy,
  // copy-2 the final copy; precheck the target's fsck of the pre-copy; flip is the directory's).
  const INSIDE: [string, MoveStep][] = [
    ['copy-1', 'precopy'], ['precheck', 'precopy'], ['freeze', 'freeze'], ['copy-2', 'final-copy'], ['verify', 'verify'],
    ['adopt', 'flip'], ['flip', 'flip'], ['release', 'flip'], ['discard', 'cleanup'],
  ];
  for (const [operation, step] of INSIDE) {
    it(`inside ${step}, after ${operation}: a resume finishes the move on the target`, async () => {
      const { world, heads, engine, moveId, step: cut } = await killed({ KILL: `after:${operation}` });
      expect(cut).toBe(step);
      expect((await engine.resume(moveId)).status).toBe('done');
      await expectOnExactlyOne(world, 'b', heads);
    });

    it(`inside ${step}, after ${operation}: a roll-back leaves the user on the source, or is refused once flipped`, async () => {
      const { world, heads, engine, moveId } = await killed({ KILL: `after:${operation}` });
      const owner = await world.directory.owner(USER);
      if (owner?.shard === 'b') {
        await expect(engine.rollback(moveId)).rejects.toThrow(/has flipped/);
        await engine.resume(moveId);
        await expectOnExactlyOne(world, 'b', heads);
      } else {
        expect((await engine.rollback(moveId)).status).toBe('rolled-back');
        await expectOnExactlyOne(world, 'a', heads);
      }
    });
  }
});
