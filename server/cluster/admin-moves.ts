import { MoveError, moveJournal, openMover, type MoveEngine, type MoveRecord, type ShardOwner } from '@/lib/cluster/move/index';
import { getClusterNode, getDataDir } from '@/server/runtime';

/** Moves the Admin page started, still running in this process (kept on globalThis: Next may load this module twice). */
const KEY = Symbol.for('entity-memory.admin-moves');
const holder = globalThis as typeof globalThis & { [KEY]?: Map<string, Promise<unknown>> };
const running = (holder[KEY] ??= new Map());

function mover(): MoveEngine | { off: string } {
  try {
    // In cluster mode the moves flip user_shard on this instance's own pool, the directory every
    // instance and HAProxy's map sync follow; without Postgres, OPENPROGRAM_CLUSTER_DIRECTORY's file.
    return openMover({ dataDir: getDataDir(), env: process.env, directory: getClusterNode()?.directory });
  } catch (error) {
    if (error instanceof MoveError) return { off: error.message };
    throw error;
  }
}

export type ClusterOverview =
  | { enabled: false; reason: string }
  | { enabled: true; instances: { id: string; url: string }[]; owners: Record<string, ShardOwner | null>; moves: MoveRecord[] };

/** What the Admin page's Move control shows: the instances, where each user is, the recent moves. */
export async function clusterOverview(userIds: string[]): Promise<ClusterOverview> {
  const engine = mover();
  if ('off' in engine) return { enabled: false, reason: engine.off };
  const directory = engine.directory;
  const owners: Record<string, ShardOwner | null> = {};
  for (const userId of userIds) owners[userId] = await directory.owner(userId);
  return { enabled: true, instances: await directory.instances(), owners, moves: moveJournal(getDataDir()).list().slice(0, 20) };
}

/** Begin a move (checked and recorded now) and run it in the background; the page follows it by id. */
export async function startAdminMove(userId: string, to: string): Promise<MoveRecord> {
  const engine = mover();
  if ('off' in engine) throw new MoveError(engine.off, 'bad_input');
  const record = await engine.begin(userId, to);
  follow(record.id, engine.resume(record.id));
  return record;
}

/** Resume or roll back a move that stopped. */
export async function continueAdminMove(moveId: string, action: 'resume' | 'rollback'): Promise<MoveRecord> {
  const engine = mover();
  if ('off' in engine) throw new MoveError(engine.off, 'bad_input');
  if (running.has(moveId)) throw new MoveError(`move ${moveId} is still running`, 'conflict');
  if (action === 'rollback') return engine.rollback(moveId);
  const record = moveJournal(getDataDir()).get(moveId);
  if (!record) throw new MoveError(`no move ${moveId}`, 'bad_input');
  follow(moveId, engine.resume(moveId));
  return record;
}

export function adminMove(moveId: string): MoveRecord | null {
  return moveJournal(getDataDir()).get(moveId);
}

function follow(moveId: string, work: Promise<unknown>): void {
  // The journal has the outcome (a failure is recorded there); the page reads it.
  const settled = work.catch((error: unknown) => console.error(`[cluster] move ${moveId}:`, (error as Error).message)).finally(() => running.delete(moveId));
  running.set(moveId, settled);
}
