import { DEFAULT_PROJECT_ID } from '../ids.js';
import { commitWorkingTree } from '../projects/index.js';
import type { OpenSession, StoreContext } from './store-context.js';
import { sessionWorkdirState } from './session-workdir.js';

/**
 * The project side of an exchange an agent ran with its own tools (DESIGN §14): the session's
 * project folder committed as it stands, once per recorded exchange, with undo and redo as a
 * chat turn's. Which other sessions may have written there since the folder's last commit is
 * kept per folder in memory: a session whose last reply called tools is running them until its
 * next exchange is recorded (which commits what they did), so a commit made meanwhile by
 * another session may hold their edits, and says so.
 */

/** An agent that asked for tools and never came back (killed) stops counting after this. */
const EDITING_FOR_MS = 30 * 60 * 1000;

class FolderActivity {
  /** folder → session → when its last reply asked for tools (ms) */
  private readonly editing = new Map<string, Map<string, number>>();

  othersEditing(folder: string, sessionId: string, now: number): string[] {
    const sessions = this.editing.get(folder);
    if (!sessions) return [];
    const out: string[] = [];
    for (const [id, since] of sessions) {
      if (now - since > EDITING_FOR_MS) sessions.delete(id);
      else if (id !== sessionId) out.push(id);
    }
    return out.sort();
  }

  note(folder: string, sessionId: string, callsTools: boolean, now: number): void {
    let sessions = this.editing.get(folder);
    if (callsTools) {
      if (!sessions) this.editing.set(folder, (sessions = new Map()));
      sessions.set(sessionId, now);
    } else if (sessions) {
      sessions.delete(sessionId);
      if (sessions.size === 0) this.editing.delete(folder);
    }
  }
}

const activities = new WeakMap<StoreContext, FolderActivity>();

function activityOf(ctx: StoreContext): FolderActivity {
  let activity = activities.get(ctx);
  if (!activity) activities.set(ctx, (activity = new FolderActivity()));
  return activity;
}

export interface AgentExchangeCommit {
  sha: string | null;
  /** null also when nothing changed (no commit is due then, and none is reported) */
  skipped: { reason: string; message: string } | null;
  /** the other sessions whose edits the commit may hold */
  sharedWith: string[];
}

/** Commit the session's project folder after an agent's exchange; null for a session in Home. */
export async function commitAgentExchange(
  ctx: StoreContext,
  session: OpenSession,
  input: { turn: number; userMessage: string; model: string; callsTools: boolean; answerEndedAt?: number },
): Promise<AgentExchangeCommit | null> {
  const projectId = ctx.registry.get(session.id)?.project_id ?? DEFAULT_PROJECT_ID;
  if (projectId === DEFAULT_PROJECT_ID || !ctx.projects.has(projectId)) return null;
  const project = await ctx.projects.get(projectId);
  let where;
  try {
    where = await sessionWorkdirState(ctx, session.meta, projectId);
  } catch (error) {
    // The folder now resolves outside the allowed roots: never committed there.
    return { sha: null, skipped: { reason: 'unsafe_path', message: `not committed: ${(error as Error).message}` }, sharedWith: [] };
  }
  const now = Date.now();
  const activity = activityOf(ctx);
  const sharedWith = activity.othersEditing(where.path, session.id, now);
  const result = await commitWorkingTree(where.path, {
    sessionId: session.id,
    turn: input.turn,
    userMessage: input.userMessage,
    model: input.model,
    sharedWith,
    autoCommit: project.autoCommit,
    allowedRoots: ctx.allowedRoots,
    ...(input.answerEndedAt !== undefined ? { writtenBefore: input.answerEndedAt } : {}),
  });
  activity.note(where.path, session.id, input.callsTools, now);
  const skipped = result.skipped && result.skipped.reason !== 'nothing_to_commit' ? result.skipped : null;
  if (skipped) ctx.events.emit('project_commit_skipped', { sessionId: session.id, projectId, reason: skipped.reason, message: skipped.message });
  // Sealed with its commit: per-turn undo moves the branch back past it, redo forward again.
  if (result.sha) await ctx.recovery.sealTurn(session.id, input.turn, where.path, { commitSha: result.sha, parent: result.parent });
  return { sha: result.sha, skipped, sharedWith: result.sha ? sharedWith : [] };
}
