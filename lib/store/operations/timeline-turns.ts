import * as fs from 'node:fs';
import git from 'isomorphic-git';
import { contentOf, messageRoleOf } from '../dag/message-shape.js';
import { projectCommitSummaries, type ProjectCommitSummary } from '../projects/index.js';
import { listBranchRefs } from '../repo/commit-log.js';
import { parseNodeFileName } from '../repo/session-files.js';
import { firstLineOf } from '../text.js';
import type { OpenSession, StoreContext } from '../session/store-context.js';
import type { MessageRole, StoredNode, TurnCommitInfo } from '../types.js';
import { listCommits } from '../session/commit-page.js';
import { withSession } from '../session/session-access.js';
import { DEFAULT_PROJECT_ID } from '../ids.js';
import { linkedProjectCommits } from '../session/project-links.js';

/** A node a turn added, enough to list it: its role and the first line of its text. */
export interface TurnNodeSummary {
  id: string;
  role: MessageRole;
  /** the node's name (a tool's, or `project/relocate` for a record); '' when none */
  name: string;
  firstLine: string;
  /** the names of the tools an assistant message called (a message that is only calls has no first line) */
  toolCalls: string[];
  /** a user message edited and resent: the first message it was made beside (a new branch); else null */
  editOf: string | null;
}

/** One turn of the timeline: the session commit, what it added, its project commit or why none, its forks. */
export interface TimelineTurn extends TurnCommitInfo {
  nodes: TurnNodeSummary[];
  /** the project commit of the same turn as the project repo has it; null when none or unreadable */
  projectCommitInfo: ProjectCommitSummary | null;
  /** assistant ids whose `retry-<id>` ref points at this commit: the replies retried here */
  retryForks: string[];
  /**
   * The agent's file edits of this turn: `applied`, or `undone` (its project commit, if any, is
   * no longer on the branch: undo moved the branch back past it); null when there is nothing to undo.
   */
  fileEdits: 'applied' | 'undone' | null;
  /** the other sessions whose edits the project commit may hold (DESIGN §14), with their titles */
  sharedWith: { id: string; title: string }[];
  /** an imported turn: the project commits its agent made during it (DESIGN §14), oldest first */
  linkedCommits: { sha: string; info: ProjectCommitSummary | null }[];
}

export interface TimelinePage {
  commits: TimelineTurn[];
  /** the user's prompts on the current branch: an agent's turns are its exchanges, several per prompt */
  prompts: number;
  nextCursor: string | null;
  /** the session's project, whose repo holds the project commits */
  projectId: string;
}

const LETTER_ROLES: Record<string, MessageRole> = { u: 'user', a: 'assistant', t: 'tool', s: 'system' };

/**
 * timeline.list: the session's turns newest first. `session init` is the repo's birth, not a
 * turn, so it is left out (and a page never promises an older page holding only it).
 */
export async function listTurns(ctx: StoreContext, sessionId: string, options: { limit?: number; cursor?: string | null } = {}): Promise<TimelinePage> {
  const page = await listCommits(ctx, sessionId, options);
  const turns = page.commits.filter((commit) => !isInitCommit(commit));
  const last = page.commits[page.commits.length - 1];
  const nextCursor = last && last.turn <= 1 ? null : page.nextCursor;
  return withSession(ctx, sessionId, async (session) => {
    const projectId = ctx.registry.get(sessionId)!.project_id;
    const linked = new Map(turns.map((turn) => [turn.turn, linkedProjectCommits(session.meta, turn.turn)]));
    const [forks, details, edits] = await Promise.all([
      retryForksByCommit(session.dir),
      projectDetails(ctx, projectId, [...turns.map((turn) => turn.projectCommit).filter((sha) => sha !== null), ...[...linked.values()].flat()]),
      projectId === DEFAULT_PROJECT_ID ? [] : Promise.all(turns.map((turn) => ctx.recovery.info(sessionId, turn.turn).catch(() => null))),
    ]);
    const commits = turns.map((turn, index) => ({
      ...turn,
      nodes: turn.nodeIds.map((id) => summarise(session, id)),
      projectCommitInfo: turn.projectCommit ? (details.get(turn.projectCommit) ?? null) : null,
      retryForks: forks.get(turn.sha) ?? [],
      fileEdits: fileEditsOf(edits[index] ?? null),
      sharedWith: turn.projectCommitSharedWith.map((id) => ({ id, title: ctx.registry.get(id)?.title ?? '' })),
      linkedCommits: (linked.get(turn.turn) ?? []).map((sha) => ({ sha, info: details.get(sha) ?? null })),
    }));
    return { commits, nextCursor, projectId, prompts: session.graph.userCountTo(session.meta.head_id) };
  });
}

function fileEditsOf(info: { state: 'applied' | 'undone'; sealed: boolean } | null): TimelineTurn['fileEdits'] {
  return info && info.sealed ? info.state : null;
}

function isInitCommit(commit: Pick<TurnCommitInfo, 'turn' | 'message'>): boolean {
  return commit.turn === 0 && commit.message === 'session init';
}

function summarise(session: OpenSession, id: string): TurnNodeSummary {
  const node = session.graph.get(id);
  if (node) {
    const role = messageRoleOf(node);
    return { id, role, name: node.name, firstLine: firstLineOf(contentOf(node)), toolCalls: role === 'assistant' ? toolCallNames(session, node) : [], editOf: role === 'user' ? earlierUserSibling(session, node.id) : null };
  }
  // A file git holds but that no longer parses: its name still says the role.
  const name = session.fileNames.get(id);
  const letter = name ? parseNodeFileName(name)?.letter : undefined;
  return { id, role: LETTER_ROLES[letter ?? 'a'] ?? 'assistant', name: '', firstLine: '', toolCalls: [], editOf: null };
}

/** The tools a message called: its recorded calls (the proxy's `tool_calls`), else the tool nodes that name it as caller. */
function toolCallNames(session: OpenSession, node: StoredNode): string[] {
  const recorded = node.metadata['tool_calls'];
  if (Array.isArray(recorded)) {
    const names = recorded.map((call) => (call !== null && typeof call === 'object' ? (call as { name?: unknown }).name : undefined)).filter((name) => typeof name === 'string' && name !== '');
    if (names.length > 0) return names as string[];
  }
  return session.graph.toolCallsOf(node.id).map((call) => call.name || 'tool');
}

/** The first user message beside this one (same predecessor), when this one came after it. */
function earlierUserSibling(session: OpenSession, id: string): string | null {
  const node = session.graph.get(id)!;
  const first = session.graph.siblingsOf(node).find((sibling) => session.graph.get(sibling)?.role === 'user');
  return first && first !== id ? first : null;
}

/** commit sha → the assistant ids retried at it (DESIGN §4.4: `retry-<assistantId>` refs). */
async function retryForksByCommit(repoDir: string): Promise<Map<string, string[]>> {
  const byCommit = new Map<string, string[]>();
  for (const branch of await listBranchRefs(repoDir)) {
    if (!branch.startsWith('retry-')) continue;
    let sha: string;
    try {
      sha = await git.resolveRef({ fs, dir: repoDir, ref: `refs/heads/${branch}` });
    } catch {
      continue;
    }
    const list = byCommit.get(sha) ?? [];
    list.push(branch.slice('retry-'.length));
    byCommit.set(sha, list);
  }
  for (const list of byCommit.values()) list.sort();
  return byCommit;
}

/** The page's project commits from the project repo; a missing folder or unreadable repo gives none (the sha stays). */
async function projectDetails(ctx: StoreContext, projectId: string, shas: string[]): Promise<Map<string, ProjectCommitSummary>> {
  if (shas.length === 0 || projectId === DEFAULT_PROJECT_ID || !ctx.projects.has(projectId)) return new Map();
  try {
    const where = await ctx.projects.workdirState(projectId);
    if (where.state === 'missing') return new Map();
    return await projectCommitSummaries(where.path, shas, { allowedRoots: ctx.allowedRoots });
  } catch {
    return new Map();
  }
}
