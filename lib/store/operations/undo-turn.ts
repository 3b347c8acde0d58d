import { PreconditionError } from '../errors.js';
import { DEFAULT_PROJECT_ID, assertTurnNumber } from '../ids.js';
import { recordNode } from '../dag/record-nodes.js';
import type { StoreContext } from '../session/store-context.js';
import { appendRecordNode } from '../session/append-node.js';
import { withSession } from '../session/session-access.js';
import { sessionWorkdirState } from '../session/session-workdir.js';

export interface UndoOutcome {
  turn: number;
  method: 'reset' | 'files';
  paths: string[];
  commit: { from: string | null; to: string | null } | null;
  /** what the turn had done to each path, and the move in words ("Removed hello.txt.") */
  changes: { path: string; change: 'added' | 'modified' | 'deleted' }[];
  summary: string;
  nodeId: string;
}

async function projectPathOf(ctx: StoreContext, sessionId: string): Promise<string> {
  const { projectId, meta } = await withSession(ctx, sessionId, (session) => ({ projectId: ctx.registry.get(sessionId)!.project_id, meta: session.meta }));
  if (projectId === DEFAULT_PROJECT_ID || !ctx.projects.has(projectId)) {
    throw new PreconditionError('this session has no project repository, so there are no file edits to undo');
  }
  const where = await sessionWorkdirState(ctx, meta, projectId);
  if (where.state === 'missing') throw new PreconditionError(`the project folder is missing (${where.path}); repair it first`);
  return where.path;
}

/**
 * Per-turn undo of the agent's file edits (entity-memory.zh.md "附件与恢复"): restores the
 * snapshots or moves the agent commit back; refused with the reason otherwise. Recorded in the
 * session as a turn/undo record node, so the history says it happened. Redo is the way back.
 */
export function undoTurn(ctx: StoreContext, sessionId: string, turn: number): Promise<UndoOutcome> {
  return moveTurn(ctx, sessionId, turn, 'undo');
}

export function redoTurn(ctx: StoreContext, sessionId: string, turn: number): Promise<UndoOutcome> {
  return moveTurn(ctx, sessionId, turn, 'redo');
}

async function moveTurn(ctx: StoreContext, sessionId: string, turn: number, direction: 'undo' | 'redo'): Promise<UndoOutcome> {
  assertTurnNumber(turn);
  if (ctx.turns.has(sessionId)) throw new PreconditionError(`a turn is running in this session; ${direction} after it ends`);
  const path = await projectPathOf(ctx, sessionId);
  const { method, commit, paths, changes, summary } = await ctx.recovery.moveTurn(direction, sessionId, turn, path);
  const nodeId = await recordMove(ctx, sessionId, direction, `${direction === 'undo' ? 'undid' : 'redid'} the file edits of turn ${turn}: ${summary}`, { turn, method, paths, commit });
  return { turn, method, paths, commit, changes, summary, nodeId };
}

/** Keep a file's content before the agent edits it during the running turn. */
export async function snapshotBeforeEdit(ctx: StoreContext, sessionId: string, relPath: string): Promise<void> {
  const running = ctx.turns.get(sessionId);
  if (!running || !running.projectPath) throw new PreconditionError('no running turn in a project for this session');
  await ctx.recovery.snapshotBefore(sessionId, running.turn, running.projectPath, relPath);
}

async function recordMove(ctx: StoreContext, sessionId: string, direction: 'undo' | 'redo', output: string, metadata: Record<string, unknown>): Promise<string> {
  const message = await appendRecordNode(ctx, sessionId, (seq, now) => recordNode({ idPrefix: direction, name: `turn/${direction}`, output, metadata }, seq, now));
  return message.id;
}
