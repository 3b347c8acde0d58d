import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import { assertProjectId } from '../ids.js';

/**
 * The `project/relocate` record node (FORMAT.md, operations.zh.md "relocate 记录节点"). A
 * repaired folder changes where every later turn runs, so it goes into the session graph. It
 * has the shape of a context record: role `code`, caller `ROOT`, no predecessor, so appending
 * it never moves the head.
 */

export const RELOCATE_NODE_NAME = 'project/relocate';

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

export interface BuildRelocateNodeInput {
  oldPath: string;
  newPath: string;
  projectId: string;
  /** The session's next seq. */
  seq: number;
  /** Milliseconds since the epoch (default now); stored as Unix seconds like every node time. */
  now?: number;
}

export function buildRelocateNode(input: BuildRelocateNodeInput): RelocateNode {
  assertProjectId(input.projectId);
  if (!Number.isSafeInteger(input.seq) || input.seq < 0) throw new InvalidInputError(`invalid seq: ${input.seq}`);
  if (typeof input.newPath !== 'string' || input.newPath === '') throw new InvalidInputError('new path is required');
  const oldPath = typeof input.oldPath === 'string' ? input.oldPath : '';
  return {
    id: `reloc_${randomBytes(5).toString('hex')}`,
    created_at: (input.now ?? Date.now()) / 1000,
    seq: input.seq,
    role: 'code',
    name: RELOCATE_NODE_NAME,
    input: null,
    // OpenProgram writes "(unset)" when the project had no path before.
    output: `${oldPath || '(unset)'} → ${input.newPath}`,
    caller: 'ROOT',
    predecessor: null,
    reads: [],
    metadata: { display: 'runtime', project_id: input.projectId, old_path: oldPath, new_path: input.newPath },
  };
}
