import type { Message, TurnCommitInfo } from '../../types.js';
import type { BlameSources } from './project-blame.js';

/**
 * Each turn's prompt for blame, kept per store and session and keyed by the session's newest
 * turn commit: after a new turn only the turns since are read (the first page of
 * `listCommits` finds the kept head), not the whole session again. A session whose history
 * was rewritten (a redaction, an undo, another branch) no longer holds the kept head and is
 * read whole, so a redacted prompt never comes back from here.
 */

/** A long prompt is cut for the gutter's tooltip; the session holds it whole. */
const PROMPT_CHARS = 2_000;
/** Sessions kept per store: blame of a file names a few sessions, not hundreds. */
const MAX_SESSIONS = 64;
/** After a new turn the kept head is a turn or two down: a small first page finds it (each turn of a page is a diff git makes). */
const FIRST_PAGE = 5;
const PAGE = 200;

export interface Prompt {
  text: string;
  /** the prompt's message: the session opens at it */
  messageId: string;
}

export interface TurnPrompt {
  turn: number;
  projectCommit: string | null;
  prompt: Prompt | null;
}

interface KeptSession {
  head: string;
  headTurn: number;
  /** the user message the newest turn's prompt is: a tool round-trip after it continues it */
  lastUser: Message | null;
  /** oldest first */
  turns: TurnPrompt[];
}

const kept = new WeakMap<object, Map<string, KeptSession>>();

type TurnSources = Pick<BlameSources, 'listCommits' | 'getNodesById'>;

/** The session's turns, oldest first, each with its prompt. */
export async function cachedTurnPrompts(sources: TurnSources, sessionId: string): Promise<readonly TurnPrompt[]> {
  let sessions = kept.get(sources);
  if (!sessions) kept.set(sources, (sessions = new Map()));
  const before = sessions.get(sessionId);
  const { fresh, found } = await turnsSince(sources, sessionId, before);
  const base = found ? before! : { lastUser: null, turns: [] };
  const nodes = await sources.getNodesById(sessionId, fresh.flatMap((turn) => turn.nodeIds));
  const withPrompts = turnPromptsOf(fresh, nodes, base.lastUser);
  const lastUser = withPrompts.at(-1)?.prompt ?? base.lastUser;
  // Consecutive turns of one prompt (a tool loop) share its cut text.
  let previous: { user: Message | null; prompt: Prompt | null } = { user: base.lastUser, prompt: base.turns.at(-1)?.prompt ?? null };
  const added = withPrompts.map(({ turn, prompt: user }): TurnPrompt => {
    if (user !== previous.user) previous = { user, prompt: user && { text: promptText(user), messageId: user.id } };
    return { turn: turn.turn, projectCommit: turn.projectCommit, prompt: previous.prompt };
  });
  const turns = added.length === 0 ? base.turns : [...base.turns, ...added];
  sessions.delete(sessionId);
  const newest = fresh.at(-1);
  const head = newest ? { head: newest.sha, headTurn: newest.turn } : found ? { head: before!.head, headTurn: before!.headTurn } : null;
  if (head) sessions.set(sessionId, { ...head, lastUser, turns });
  for (const oldest of sessions.keys()) {
    if (sessions.size <= MAX_SESSIONS) break;
    sessions.delete(oldest);
  }
  return turns;
}

/** The turns after the kept head, oldest first; all of them when the head is not in the session's history any more. */
async function turnsSince(sources: TurnSources, sessionId: string, before: KeptSession | undefined): Promise<{ fresh: TurnCommitInfo[]; found: boolean }> {
  const fresh: TurnCommitInfo[] = [];
  let cursor: string | null = null;
  do {
    const page = await sources.listCommits(sessionId, { limit: before && !cursor ? FIRST_PAGE : PAGE, cursor });
    for (const turn of page.commits) {
      if (before && turn.sha === before.head && turn.turn === before.headTurn) return { fresh: fresh.reverse(), found: true };
      fresh.push(turn);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return { fresh: fresh.reverse(), found: false };
}

/** Each turn with its prompt: the user message it added, else the one the turns before it last added (from `lastUser` on). */
export function turnPromptsOf(turns: readonly TurnCommitInfo[], nodes: readonly Message[], lastUser: Message | null): Array<{ turn: TurnCommitInfo; prompt: Message | null }> {
  const users = new Map(nodes.filter((node) => node.role === 'user').map((node) => [node.id, node]));
  let last = lastUser;
  return turns.map((turn) => {
    const added = turn.nodeIds.map((id) => users.get(id)).filter((node) => node !== undefined);
    if (added.length > 0) last = added[added.length - 1]!;
    return { turn, prompt: last };
  });
}

/** A prompt as blame and the traces show it: cut at PROMPT_CHARS. */
export function promptText(user: Message): string {
  return user.content.length > PROMPT_CHARS ? Array.from(user.content).slice(0, PROMPT_CHARS).join('') : user.content;
}
