import { ConflictError, InvalidInputError, PreconditionError } from '../errors.js';
import { beginProjectTurn, changedSinceBegin, findNestedGit, finishProjectTurn, NESTED_GIT_TRAILER, normalizeProjectPath, type ProjectTurnSnapshot } from '../projects/index.js';
import { writeBranchRef } from '../repo/commit-log.js';
import { REPACK_LOOSE_BYTES } from '../repo/repack.js';
import { parseNodeFileName, writeMeta } from '../repo/session-files.js';
import { commitTurnFiles, hasTurnChanges } from '../repo/session-git.js';
import { sliceCodePoints } from '../text.js';
import type { OpenSession, RunningTurn, StoreContext } from '../session/store-context.js';
import { FINAL_STATUSES, type SessionStatus, type StoredNode } from '../types.js';
import { updateSessionFields, withSession } from '../session/session-access.js';
import { ensureCommitState, headDepth, pendingRetryRefs } from '../session/commit-state.js';
import { maybeAutoTitle } from '../session/auto-title.js';
import { DEFAULT_PROJECT_ID } from '../ids.js';
import { interruptedTurnNode } from '../dag/record-nodes.js';
import type { TurnInterruptReason } from '../types.js';
import { writeNode } from '../session/append-node.js';
import { INTERRUPTION_KEY } from '../session/interruption.js';
import { commitAgentExchange } from '../session/agent-exchange-commit.js';
import { SHARED_WITH_TRAILER } from '../projects/index.js';
import { sessionWorkdirState } from '../session/session-workdir.js';

export interface BeginTurnResult {
  turn: number;
  /** whether the project's working tree was clean; null for the default project (no repo) */
  projectClean: boolean | null;
}

/**
 * turn.begin: status running; a second begin while one runs is a CONFLICT. A session bound to a
 * project whose folder is missing is refused with the location, never run in another folder.
 * The project's dirty paths are noted for the auto-commit at the end (DESIGN §4.8).
 */
export function beginTurn(ctx: StoreContext, sessionId: string, options: { selfTimed?: boolean } = {}): Promise<BeginTurnResult> {
  return withSession(ctx, sessionId, async (session) => {
    if (session.meta.status === 'running' || ctx.turns.has(sessionId)) throw new ConflictError('a turn is already running in this session');
    const projectId = ctx.registry.get(sessionId)!.project_id;
    let projectPath: string | null = null;
    let snapshot: ProjectTurnSnapshot | null = null;
    if (projectId !== DEFAULT_PROJECT_ID && ctx.projects.has(projectId)) {
      const where = await sessionWorkdirState(ctx, session.meta, projectId);
      if (where.state === 'missing') {
        throw new PreconditionError(`the folder of project ${ctx.projects.nameOf(projectId)} is missing (${where.path}); repair it with relocate before starting a turn`);
      }
      projectPath = where.path;
      snapshot = await beginProjectTurn(where.path, { allowedRoots: ctx.allowedRoots });
    }
    const turn = turnCountOf(session) + 1;
    const metaBefore = session.meta;
    ctx.turns.set(sessionId, { turn, projectId, projectPath, snapshot, lastActivityAt: ctx.now(), selfTimed: options.selfTimed === true });
    // The note of the previous turn's interruption is about that turn only.
    if (INTERRUPTION_KEY in session.meta) {
      const { [INTERRUPTION_KEY]: _previous, ...rest } = session.meta;
      session.meta = rest as typeof session.meta;
    }
    try {
      // Journaled and in meta.json: the registry may follow within the debounce window.
      await updateSessionFields(ctx, session, { status: 'running' }, { writeNow: false });
    } catch (error) {
      // Not written (a full disk): no turn began, or every later begin and chat would be a CONFLICT.
      ctx.turns.delete(sessionId);
      session.meta = metaBefore;
      throw error;
    }
    return { turn, projectClean: snapshot ? snapshot.state === 'ok' && snapshot.clean : null };
  });
}

function turnCountOf(session: OpenSession): number {
  const count = session.meta.turn_count;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : (session.headDepth ?? 0);
}

export interface FinalizeTurnInput {
  commitMessage?: string;
  status?: SessionStatus;
  /** project-relative paths the agent wrote, when known (the built-in tools); omitted: unknown */
  writtenPaths?: string[];
  /** the model of the turn, for the agent identity of the project commit */
  model?: string;
  /**
   * A title the session has stays: no automatic title at this turn's end. The web chat answering
   * in an agent's session (Retry, Edit) must not re-title it with its own model's words (issue 28).
   */
  keepTitle?: boolean;
  /**
   * An agent's exchange recorded by the proxy (DESIGN §14): its tools ran outside, so the
   * session's project folder is committed as it stands. `callsTools`: the reply asked for tools,
   * which run until the next exchange; `answerEndedAt` (ms since the epoch): the answer's last
   * byte, after which those tools may already be writing (their files wait for the next commit).
   */
  agentExchange?: { callsTools: boolean; answerEndedAt?: number };
}

export interface FinalizeTurnResult {
  turn: number;
  sessionCommit: string | null;
  projectCommit: string | null;
  projectCommitSkipped: null | { reason: string; message: string };
}

/** The session-commit trailer naming why the turn made no project commit. */
const PROJECT_SKIPPED_TRAILER = 'OpenProgram-Project-Skipped';


/**
 * The end of a turn: the project's auto-commit (when a begin noted its state), then status,
 * turn_count and one session commit of everything the turn wrote, then the title policy.
 * Nothing new in the session → no commit and no new turn number.
 */
export function finalizeTurn(ctx: StoreContext, sessionId: string, input: FinalizeTurnInput = {}): Promise<FinalizeTurnResult> {
  const status = input.status ?? 'idle';
  if (!(FINAL_STATUSES as readonly string[]).includes(status)) throw new InvalidInputError(`status must be one of ${FINAL_STATUSES.join(', ')}`);
  if (input.commitMessage !== undefined && (typeof input.commitMessage !== 'string' || input.commitMessage.trim() === '')) {
    throw new InvalidInputError('commitMessage must be a non-empty string');
  }
  if (input.writtenPaths !== undefined && (!Array.isArray(input.writtenPaths) || input.writtenPaths.some((path) => typeof path !== 'string'))) {
    throw new InvalidInputError('writtenPaths must be a list of paths');
  }
  // Refused before anything changes: the turn stays running and a corrected finalize can follow.
  input.writtenPaths?.forEach(normalizeProjectPath);
  return withSession(ctx, sessionId, async (session) => {
    const running = ctx.turns.get(sessionId) ?? null;
    ctx.turns.delete(sessionId);
    try {
      return await finalizeInSession(ctx, session, running, input, status);
    } catch (error) {
      // The turn is over either way: a finalize that failed half-way never leaves it running.
      if (session.meta.status === 'running') {
        await updateSessionFields(ctx, session, { status: 'failed' }, { writeNow: false }).catch(() => {});
      }
      throw error;
    }
  });
}

async function finalizeInSession(
  ctx: StoreContext,
  session: OpenSession,
  running: RunningTurn | null,
  input: FinalizeTurnInput,
  status: SessionStatus,
): Promise<FinalizeTurnResult> {
  const sessionId = session.id;
  const state = await ensureCommitState(session);
  if (typeof session.meta.turn_count !== 'number') await headDepth(session);
  const added = session.uncommitted.filter((name) => !state.historyNames.has(name));
  if (!hasTurnChanges(session.dir, state, added)) {
    if (session.meta.status !== status) await updateSessionFields(ctx, session, { status }, { writeNow: false });
    return { turn: turnCountOf(session), sessionCommit: null, projectCommit: null, projectCommitSkipped: null };
  }
  const turn = turnCountOf(session) + 1;
  const userMessage = turnUserMessage(session, added);
  const project = running?.snapshot
    ? await commitProjectTurn(ctx, session, running, { ...input, turn, userMessage })
    : input.agentExchange
      ? await commitAgentExchange(ctx, session, { turn, userMessage, model: modelOf(session, input), callsTools: input.agentExchange.callsTools, answerEndedAt: input.agentExchange.answerEndedAt })
      : null;

  const trailers: string[] = [];
  if (project?.sha) trailers.push(`OpenProgram-Project-Commit: ${project.sha}`);
  // Why there is none, kept with the turn: the event alone is gone once the tab closes.
  else if (project?.skipped) trailers.push(`${PROJECT_SKIPPED_TRAILER}: ${project.skipped.reason}`);
  // No commit and no refusal: say which of the quiet reasons, so the timeline need not guess.
  else trailers.push(`${PROJECT_SKIPPED_TRAILER}: ${quietSkipReason(ctx, sessionId, running, project)}`);
  // JSON: a path may hold a newline, which would end the trailer.
  for (const path of project && 'nestedGit' in project ? project.nestedGit : []) trailers.push(`${NESTED_GIT_TRAILER}: ${JSON.stringify(path)}`);
  for (const other of project && 'sharedWith' in project ? project.sharedWith : []) trailers.push(`${SHARED_WITH_TRAILER}: ${other}`);
  let message = input.commitMessage ?? defaultCommitMessage(session, added, userMessage);
  if (trailers.length > 0) message += `\n\n${trailers.join('\n')}`;
  const pendingRefs = pendingRetryRefs(session);
  await updateSessionFields(ctx, session, { status, turn_count: turn }, { writeNow: false });
  if (pendingRefs.length > 0) {
    delete session.meta['_pending_retry_refs'];
    writeMeta(session.dir, session.meta, ctx.redactor);
  }
  const result = await commitTurnFiles(session.dir, state, added, message, ctx.now(), ctx.redactor);
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
  if (!(input.keepTitle && session.meta.title !== '')) await maybeAutoTitle(ctx, session);
  return { turn, sessionCommit: result.sha, projectCommit: project?.sha ?? null, projectCommitSkipped: project?.skipped ?? null };
}

function modelOf(session: OpenSession, input: FinalizeTurnInput): string {
  return input.model ?? (typeof session.meta['model'] === 'string' ? (session.meta['model'] as string) : 'unknown model');
}

/**
 * DESIGN §4.8 at the end of a turn: commit the agent's writes in the project repo when the
 * tree allowed it, else say why (project_commit_skipped). Seals the turn's undo record.
 */
async function commitProjectTurn(
  ctx: StoreContext,
  session: OpenSession,
  running: RunningTurn,
  input: FinalizeTurnInput & { turn: number; userMessage: string },
): Promise<{ sha: string | null; skipped: { reason: string; message: string } | null; nestedGit: string[] }> {
  const snapshot = running.snapshot!;
  const projectId = running.projectId;
  const autoCommit = ctx.projects.has(projectId) ? (await ctx.projects.get(projectId)).autoCommit : false;
  const model = modelOf(session, input);
  const result = await finishProjectTurn(snapshot, {
    projectPath: running.projectPath ?? undefined,
    writtenPaths: input.writtenPaths,
    sessionId: session.id,
    turn: input.turn,
    userMessage: input.userMessage,
    model,
    autoCommit,
    allowedRoots: ctx.allowedRoots,
  });
  if (result.skipped && result.skipped.reason !== 'nothing_to_commit') {
    ctx.events.emit('project_commit_skipped', { sessionId: session.id, projectId, reason: result.skipped.reason, message: result.skipped.message });
  }
  if (running.projectPath) await ctx.recovery.sealTurn(session.id, input.turn, running.projectPath, { commitSha: result.sha ?? undefined, parent: result.parent });
  const skipped = result.skipped && result.skipped.reason !== 'nothing_to_commit' ? result.skipped : null;
  let nestedGit: string[] = [];
  if (snapshot.state === 'ok') {
    const touched = [...(input.writtenPaths ?? []).map(normalizeProjectPath), ...result.paths, ...result.ignoredPaths];
    // Writes not named and not committed: what changed in the tree since the begin.
    if (input.writtenPaths === undefined && !result.sha) touched.push(...(await changedSinceBegin(snapshot.projectPath, snapshot.dirtyPaths)));
    nestedGit = await findNestedGit(snapshot.projectPath, touched, snapshot.head);
  }
  return { sha: result.sha, skipped, nestedGit };
}

/**
 * Why a turn that was not refused made no project commit: the session has no project folder, no
 * turn.begin watched the project (the proxy's exchanges, a finalize alone), or nothing changed.
 */
function quietSkipReason(ctx: StoreContext, sessionId: string, running: RunningTurn | null, project: { sha: string | null } | null): 'no_project' | 'no_begin' | 'nothing_to_commit' {
  const projectId = ctx.registry.get(sessionId)?.project_id ?? DEFAULT_PROJECT_ID;
  if (projectId === DEFAULT_PROJECT_ID || !ctx.projects.has(projectId) || (running && !running.snapshot)) return 'no_project';
  return project ? 'nothing_to_commit' : 'no_begin';
}

export interface InterruptTurnResult {
  /** false when no turn was running (nothing changed) */
  interrupted: boolean;
  sessionCommit: string | null;
}

/**
 * Ends a running turn from outside: Stop on a turn no process of ours drives (an agent that
 * called turn.begin and went away), or the idle sweep. A `turn/interrupted` record node says
 * so, and the turn is finalised `cancelled` with one session commit, like any finalize.
 */
export function interruptTurn(
  ctx: StoreContext,
  sessionId: string,
  input: { reason: TurnInterruptReason; idleMs?: number },
): Promise<InterruptTurnResult> {
  return withSession(ctx, sessionId, async (session) => {
    const running = ctx.turns.get(sessionId) ?? null;
    if (!running && session.meta.status !== 'running') return { interrupted: false, sessionCommit: null };
    ctx.turns.delete(sessionId);
    const now = ctx.now();
    const idleMs = input.reason === 'idle' ? (input.idleMs ?? 0) : null;
    session.meta = { ...session.meta, [INTERRUPTION_KEY]: { reason: input.reason, at: now, ...(idleMs !== null ? { idle_ms: idleMs } : {}) } };
    writeNode(ctx, session, interruptedTurnNode({ reason: input.reason, idleMs }, session.graph.lastSeq + 1, now));
    try {
      const result = await finalizeInSession(ctx, session, running, {}, 'cancelled');
      return { interrupted: true, sessionCommit: result.sessionCommit };
    } catch (error) {
      if (session.meta.status === 'running') await updateSessionFields(ctx, session, { status: 'failed' }, { writeNow: false }).catch(() => {});
      throw error;
    }
  });
}

/** The running turns with no activity for `idleMs` or more; the server's own (chat) turns never. */
export function idleTurnIds(turns: ReadonlyMap<string, RunningTurn>, nowSeconds: number, idleMs: number): string[] {
  const limit = idleMs / 1000;
  return [...turns].filter(([, turn]) => !turn.selfTimed && nowSeconds - turn.lastActivityAt >= limit).map(([id]) => id);
}

/** Ends every idle turn (interruptTurn, reason `idle`); a session that fails is logged and left. */
export async function sweepIdleTurns(ctx: StoreContext, idleMs: number): Promise<string[]> {
  const ended: string[] = [];
  for (const sessionId of idleTurnIds(ctx.turns, ctx.now(), idleMs)) {
    try {
      // Activity may have arrived while an earlier session was being ended.
      const turn = ctx.turns.get(sessionId);
      if (!turn || ctx.now() - turn.lastActivityAt < idleMs / 1000) continue;
      if ((await interruptTurn(ctx, sessionId, { reason: 'idle', idleMs })).interrupted) ended.push(sessionId);
    } catch (error) {
      console.error(`[turns] could not end the idle turn of ${sessionId}:`, error);
    }
  }
  return ended;
}

/** The user message that started the turn: the newest one it added, else the newest on the branch. */
function turnUserMessage(session: OpenSession, addedNames: string[]): string {
  const added = nodesOf(session, addedNames);
  const user = [...added].reverse().find((node) => node.role === 'user') ?? [...session.graph.branchTo(session.meta.head_id)].reverse().find((node) => node.role === 'user');
  return String(user?.output ?? '');
}

function nodesOf(session: OpenSession, names: string[]): StoredNode[] {
  return names
    .map((name) => parseNodeFileName(name))
    .filter((parsed) => parsed !== null)
    .sort((a, b) => a.seq - b.seq)
    .map((parsed) => session.graph.get(parsed.id))
    .filter((node) => node !== undefined);
}

/** `turn: <first line of the turn's user message, 60 code points>`; a reply-only turn is a retry; tool results continue a prompt. */
function defaultCommitMessage(session: OpenSession, addedNames: string[], userMessage: string): string {
  const added = nodesOf(session, addedNames);
  if (added.some((node) => node.role === 'user')) {
    const firstLine = userMessage.trim().split('\n')[0]?.trim() ?? '';
    return `turn: ${sliceCodePoints(firstLine, 60)}`;
  }
  const forked = added.some((node) => node.role === 'llm' && session.graph.siblingsOf(node).length > 1);
  if (forked) return 'turn: retry';
  // An agent's tool round-trip (the proxy records each exchange as a turn): named for the prompt it continues.
  if (added.some((node) => node.role === 'code')) {
    const prompt = userMessage.trim().split('\n')[0]?.trim() ?? '';
    return prompt ? `turn: tool results · ${sliceCodePoints(prompt, 60)}` : 'turn: tool results';
  }
  return 'turn';
}
