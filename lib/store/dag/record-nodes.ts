import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import { assertProjectId } from '../ids.js';
import type { TurnInterruptReason } from '../types.js';

/**
 * A record node (a relocation, an undo): role `code`, caller `ROOT`, no predecessor, so
 * appending it never moves the head; `display: 'runtime'` in front of its own metadata.
 */
export function recordNode<Name extends string, Meta extends Record<string, unknown>>(
  input: { idPrefix: string; name: Name; output: string; metadata: Meta },
  seq: number,
  createdAtSeconds: number,
) {
  return {
    id: `${input.idPrefix}_${randomBytes(5).toString('hex')}`,
    created_at: createdAtSeconds,
    seq,
    role: 'code' as const,
    name: input.name,
    input: null,
    output: input.output,
    caller: 'ROOT' as const,
    predecessor: null,
    reads: [] as never[],
    metadata: { display: 'runtime' as const, ...input.metadata },
  };
}

/**
 * The `project/relocate` record node (FORMAT.md, operations.zh.md "relocate 记录节点"). A
 * repaired folder changes where every later turn runs, so it goes into the session graph. It
 * has the shape of a context record: role `code`, caller `ROOT`, no predecessor, so appending
 * it never moves the head.
 */

const RELOCATE_NODE_NAME = 'project/relocate';

export interface RelocateNode {
  id: string;
  created_at: number;
  seq: number;
  role: 'code';
  name: typeof RELOCATE_NODE_NAME;
  input: null;
  output: string;
  caller: 'ROOT';
  predecessor: null;
  reads: never[];
  metadata: { display: 'runtime'; project_id: string; old_path: string; new_path: string };
}

export interface RelocateNodeInput {
  oldPath: string;
  newPath: string;
  projectId: string;
}

/** project/relocate: the node time in Unix seconds, as the session store keeps it. */
export function relocateNode(input: RelocateNodeInput, seq: number, createdAtSeconds: number): RelocateNode {
  assertProjectId(input.projectId);
  if (!Number.isSafeInteger(seq) || seq < 0) throw new InvalidInputError(`invalid seq: ${seq}`);
  if (typeof input.newPath !== 'string' || input.newPath === '') throw new InvalidInputError('new path is required');
  const oldPath = typeof input.oldPath === 'string' ? input.oldPath : '';
  return recordNode(
    {
      idPrefix: 'reloc',
      name: RELOCATE_NODE_NAME,
      // OpenProgram writes "(unset)" when the project had no path before.
      output: `${oldPath || '(unset)'} → ${input.newPath}`,
      metadata: { project_id: input.projectId, old_path: oldPath, new_path: input.newPath },
    },
    seq,
    createdAtSeconds,
  );
}


const INTERRUPTED_NODE_NAME = 'turn/interrupted';

/** "1 minute", "10 minutes", "45 seconds": the idle limit as the note says it. */
export function describeDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return `${hours} hours`;
}

/** The sentence the session shows for an interrupted turn. */
export function interruptionNote(reason: TurnInterruptReason, idleMs: number | null): string {
  return reason === 'idle'
    ? `No activity for ${describeDuration(idleMs ?? 0)}: the turn was ended as cancelled.`
    : 'Stopped: the turn was ended as cancelled.';
}

/**
 * `turn/interrupted`: a running turn ended from outside (its agent never finalised). A record
 * node like project/relocate, so the turn's commit names what happened on the timeline.
 */
export function interruptedTurnNode(input: { reason: TurnInterruptReason; idleMs: number | null }, seq: number, createdAtSeconds: number) {
  return recordNode(
    {
      idPrefix: 'intr',
      name: INTERRUPTED_NODE_NAME,
      output: interruptionNote(input.reason, input.idleMs),
      metadata: { reason: input.reason, ...(input.idleMs !== null ? { idle_ms: input.idleMs } : {}) },
    },
    seq,
    createdAtSeconds,
  );
}
