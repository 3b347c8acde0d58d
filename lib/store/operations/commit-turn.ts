import { ConflictError, InvalidInputError } from '../errors.js';
import { countCommits, writeBranchRef } from '../repo/commit-log.js';
import { REPACK_LOOSE_BYTES } from '../repo/repack.js';
import { parseNodeFileName, writeMeta } from '../repo/session-files.js';
import {
  commitTurnFiles,
  hasTurnChanges,
  loadCommitState,
  readCommitObject,
  readHistoryBody,
  type CommitState,
} from '../repo/session-git.js';
import { sliceCodePoints } from '../text.js';
import type { OpenSession, StoreContext } from '../store-context.js';
import type { SessionStatus } from '../types.js';
import { updateSessionFields, withSession } from './session-access.js';
import { maybeAutoTitle } from '../titles/auto-title.js';

/** The last commit's state; once loaded, appends keep `uncommitted` so a commit never rescans. */
export async function ensureCommitState(session: OpenSession): Promise<CommitState> {
  if (!session.commit) {
    const state = await loadCommitState(session.dir);
    session.uncommitted = [...session.fileNames.values()].filter((name) => !state.historyNames.has(name));
    session.commit = state;
  }
  return session.commit;
}

/** First-parent depth of the head commit: the number of turns in the repo. */
export async function headDepth(session: OpenSession): Promise<number> {
  if (session.headDepth === null) {
    const state = await ensureCommitState(session);
    session.headDepth = Math.max(0, (await countCommits(session.dir, state.head)) - 1);
  }
  return session.headDepth;
}

export interface BeginTurnResult {
  turn: number;
  projectClean: boolean | null;
}

/** turn.begin: status running; a second begin while one runs is a CONFLICT. */
export function beginTurn(ctx: StoreContext, sessionId: string): Promise<BeginTurnResult> {
  return withSession(ctx, sessionId, async (session) => {
    if (session.meta.status === 'running') throw new ConflictError('a turn is already running in this session');
    await updateSessionFields(ctx, session, { status: 'running' }, { writeNow: false });
    return { turn: turnCountOf(session) + 1, projectClean: null };
  });
}

function turnCountOf(session: OpenSession): number {
  const count = session.meta.turn_count;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : (session.headDepth ?? 0);
}

export interface FinalizeTurnInput {
  commitMessage?: string;
  status?: SessionStatus;
}

export interface FinalizeTurnResult {
  turn: number;
  sessionCommit: string | null;
  projectCommit: string | null;
  projectCommitSkipped: null | { reason: string; message: string };
}

const FINAL_STATUSES: readonly string[] = ['idle', 'failed', 'cancelled'];

/**
 * The end of a turn: status, turn_count and one commit of everything the turn wrote, then
 * the title policy. Nothing new → no commit (and no new turn number).
 */
export function finalizeTurn(ctx: StoreContext, sessionId: string, input: FinalizeTurnInput = {}): Promise<FinalizeTurnResult> {
  const status = input.status ?? 'idle';
  if (!FINAL_STATUSES.includes(status)) throw new InvalidInputError(`status must be one of ${FINAL_STATUSES.join(', ')}`);
  if (input.commitMessage !== undefined && (typeof input.commitMessage !== 'string' || input.commitMessage.trim() === '')) {
    throw new InvalidInputError('commitMessage must be a non-empty string');
  }
  return withSession(ctx, sessionId, async (session) => {
    const state = await ensureCommitState(session);
    if (typeof session.meta.turn_count !== 'number') await headDepth(session);
    const added = session.uncommitted.filter((name) => !state.historyNames.has(name));
    // Status is journaled and in meta.json, so the registry may follow within the debounce window.
    if (!hasTurnChanges(session.dir, state, added)) {
      if (session.meta.status !== status) await updateSessionFields(ctx, session, { status }, { writeNow: false });
      return { turn: turnCountOf(session), sessionCommit: null, projectCommit: null, projectCommitSkipped: null };
    }
    const message = input.commitMessage ?? defaultCommitMessage(session, added);
    const turn = turnCountOf(session) + 1;
    const pendingRefs = pendingRetryRefs(session);
    await updateSessionFields(ctx, session, { status, turn_count: turn }, { writeNow: false });
    if (pendingRefs.length > 0) {
      delete session.meta['_pending_retry_refs'];
      writeMeta(session.dir, session.meta);
    }
    const result = await commitTurnFiles(session.dir, state, added, message, ctx.now());
    if (!result) return { turn: turnCountOf(session), sessionCommit: null, projectCommit: null, projectCommitSkipped: null };
    session.uncommitted = [];
    for (const assistantId of pendingRefs) await writeBranchRef(session.dir, `retry-${assistantId}`, result.sha);
    if (session.headDepth !== null) session.headDepth++;
    ctx.events.emit('turn_committed', { sessionId, turn, sha: result.sha });
    if (state.looseBytes >= REPACK_LOOSE_BYTES) {
      state.looseBytes = 0;
      state.looseObjects = 0;
      ctx.repack.schedule(session.dir);
    }
    await maybeAutoTitle(ctx, session);
    return { turn, sessionCommit: result.sha, projectCommit: null, projectCommitSkipped: null };
  });
}

/** `turn: <first line of the turn's user message, 60 code points>`; a reply-only turn is a retry. */
function defaultCommitMessage(session: OpenSession, addedNames: string[]): string {
  const added = addedNames
    .map((name) => parseNodeFileName(name))
    .filter((parsed) => parsed !== null)
    .sort((a, b) => a.seq - b.seq)
    .map((parsed) => session.graph.get(parsed.id))
    .filter((node) => node !== undefined);
  const user = [...added].reverse().find((node) => node.role === 'user');
  if (user) {
    const firstLine = String(user.output ?? '').trim().split('\n')[0]?.trim() ?? '';
    return `turn: ${sliceCodePoints(firstLine, 60)}`;
  }
  const forked = added.some((node) => node.role === 'llm' && session.graph.siblingsOf(node).length > 1);
  return forked ? 'turn: retry' : 'turn';
}

function pendingRetryRefs(session: OpenSession): string[] {
  const pending = session.meta['_pending_retry_refs'];
  return Array.isArray(pending) ? pending.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * retry-<assistantId> at the commit that added the retried reply; when the reply is not
 * committed yet, at the commit that will hold it (kept in meta.json until then).
 */
export async function recordRetryRef(session: OpenSession, assistantId: string): Promise<void> {
  const state = await ensureCommitState(session);
  const name = session.fileNames.get(assistantId);
  if (!name) return;
  if (!state.historyNames.has(name) || !state.head) {
    const pending = new Set(pendingRetryRefs(session));
    pending.add(assistantId);
    session.meta = { ...session.meta, _pending_retry_refs: [...pending] };
    writeMeta(session.dir, session.meta);
    return;
  }
  const needle = Buffer.from(` ${name}\0`);
  let holder = state.head;
  // Walk back while the parent still holds the node; bounded, because history can be long.
  for (let step = 0; step < 2_000; step++) {
    const commit = await readCommitObject(session.dir, holder);
    const parent = commit.parents[0];
    if (!parent) break;
    const parentCommit = await readCommitObject(session.dir, parent);
    if (!(await readHistoryBody(session.dir, parentCommit.tree)).includes(needle)) break;
    holder = parent;
  }
  await writeBranchRef(session.dir, `retry-${assistantId}`, holder);
}
