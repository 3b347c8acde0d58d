import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import type { EventHandoff, RepoHeads } from './ports.js';

/** The steps of a move, in order (GitLab's repository storage moves). */
export const MOVE_STEPS = ['precopy', 'freeze', 'final-copy', 'verify', 'flip', 'cleanup'] as const;
export type MoveStep = (typeof MOVE_STEPS)[number];

/** running: a step is under way or was cut off (resume or roll back); the others are final. */
export type MoveStatus = 'running' | 'failed' | 'done' | 'rolled-back';

export interface MoveRecord {
  id: string;
  userId: string;
  from: string;
  to: string;
  /** the owner's epoch when the move began; the flip raises it by one */
  epoch: number;
  /** the step under way (or the last one, when done) */
  step: MoveStep;
  status: MoveStatus;
  startedAt: number;
  updatedAt: number;
  /** steps finished, with when */
  finished: { step: MoveStep; at: number; ms: number }[];
  /** when the engine asked the source to freeze: from then on the user's writes are refused */
  freezeRequestedAt?: number;
  /** what the freeze answered (the target continues from it); `at` is when it was requested */
  frozen?: { handoff: EventHandoff; heads: RepoHeads; at: number };
  /**
   * The repositories the target's fsck found clean after the pre-copy (absent: not checked, as
   * in a journal older than the check, or the check failed: the verify then fscks them all)
   */
  precopyClean?: string[];
  /** set as the final copy begins: a final copy run again cannot know what a cut-off one wrote */
  finalCopyStarted?: boolean;
  /** the repositories the final copy wrote a file of (absent: unknown) */
  finalCopyChanged?: string[];
  /** what the verify read: repositories in all, and how many of them it fscked */
  verified?: { repos: number; fscked: number };
  /** ms the user's writes were refused: from the freeze request to the flip */
  freezeMs?: number;
  error?: string;
}

const MOVE_ID = /^[0-9a-z]{8,40}$/;

export function newMoveId(now = Date.now()): string {
  return `${now.toString(36)}${randomBytes(4).toString('hex')}`;
}

/**
 * One JSON file per move (`<dir>/<id>.json`), replaced atomically at every step, so a SIGKILL of
 * the mover leaves the last step it recorded and never a torn file.
 */
export class MoveJournal {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  save(record: MoveRecord): void {
    if (!MOVE_ID.test(record.id)) throw new Error(`bad move id ${record.id}`);
    atomicWriteFileSync(join(this.dir, `${record.id}.json`), `${JSON.stringify(record, null, 2)}\n`);
  }

  get(id: string): MoveRecord | null {
    if (!MOVE_ID.test(id)) return null;
    try {
      return JSON.parse(readFileSync(join(this.dir, `${id}.json`), 'utf8')) as MoveRecord;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Every move, newest first. */
  list(): MoveRecord[] {
    const records: MoveRecord[] = [];
    for (const name of readdirSync(this.dir)) {
      const match = /^(.+)\.json$/.exec(name);
      const record = match ? this.get(match[1]!) : null;
      if (record) records.push(record);
    }
    return records.sort((a, b) => b.startedAt - a.startedAt);
  }

  /** The user's move that has not ended (running or failed), if any: one at a time per user. */
  openMoveOf(userId: string): MoveRecord | null {
    return this.list().find((record) => record.userId === userId && (record.status === 'running' || record.status === 'failed')) ?? null;
  }
}
