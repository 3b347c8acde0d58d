import { InvalidInputError, NotFoundError, PreconditionError } from '../errors.js';
import { assertNodeId, assertTurnNumber, DEFAULT_PROJECT_ID, newSessionId } from '../ids.js';
import { messageRoleOf } from '../dag/message-shape.js';
import { isConversationMessage } from '../dag/graph.js';
import { runGit } from '../git/git-cli.js';
import { addForkCode, checkForkWorktreePath, defaultForkWorktree, forkBranchName, removeForkWorktree, type ForkCode } from '../projects/index.js';
import { listCommits } from '../session/commit-page.js';
import { openSession, withSession } from '../session/session-access.js';
import { forkMeta } from '../session/session-workdir.js';
import type { ImportNode } from '../session/imported-nodes.js';
import type { OpenSession, StoreContext } from '../session/store-context.js';
import { toRow } from '../registry/row.js';
import type { ForkInfo, SessionRow, StoredNode, TurnCommitInfo } from '../types.js';

/**
 * "Fork from here" (DESIGN §14): a new session holding the conversation up to a turn (or up to
 * one message of it), and, for a session in a project, a project branch at that turn's project
 * commit, checked out in a worktree of the fork's own unless the user asked for the branch only.
 * The fork's chat and agent turns run and commit in its worktree (session-workdir.ts), never in
 * the original folder; deleting the fork removes the worktree (removeForkCode).
 */

export interface ForkAtTurnInput {
  /** the turn to fork at (its last message and its project commit) */
  turn?: number;
  /** or a message: the conversation up to it, the code of the turn that added it */
  nodeId?: string;
  /** a worktree of the project (default) or only a branch in it */
  code?: ForkCode;
  /** where the worktree goes; default `<folder>.forks/<fork id>` beside the project folder */
  worktree?: string | null;
}

export interface ForkResult {
  session: SessionRow;
  fork: ForkInfo;
}

/** The store's own operations the fork is made with (operations never import each other). */
export interface ForkSteps {
  importSession(input: { id: string; source: string; title: string; turns: ImportNode[][]; headId: string; meta: Record<string, unknown> }): Promise<unknown>;
  moveFromHome(sessionId: string, projectId: string): Promise<SessionRow>;
}

/** The session's turn commits, oldest first (turn 0, the repo's birth, left out). */
async function turnCommits(ctx: StoreContext, sessionId: string): Promise<TurnCommitInfo[]> {
  const all: TurnCommitInfo[] = [];
  let cursor: string | null = null;
  do {
    const page = await listCommits(ctx, sessionId, { limit: 200, cursor });
    all.push(...page.commits);
    cursor = page.nextCursor;
  } while (cursor);
  return all.filter((commit) => commit.turn >= 1).reverse();
}

/**
 * The project commit a turn's code stands at: its own, or the last one before it; when no turn up
 * to it committed, the commit before the session's first project commit, else the folder's HEAD.
 */
async function projectCommitAt(folder: string, commits: readonly TurnCommitInfo[], turn: number): Promise<string> {
  const upTo = commits.filter((commit) => commit.turn <= turn && commit.projectCommit);
  if (upTo.length > 0) return upTo[upTo.length - 1]!.projectCommit!;
  const later = commits.find((commit) => commit.turn > turn && commit.projectCommit);
  const rev = later ? `${later.projectCommit}^` : 'HEAD';
  const { stdout, code } = await runGit(folder, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { okCodes: [0, 1] });
  if (code !== 0) throw new PreconditionError('the project has no commit to fork its code from');
  return stdout.toString('utf8').trim();
}

function importNodeOf(node: StoredNode): ImportNode {
  const role = messageRoleOf(node);
  // A copied answer was paid for in the original session: its usage stays there, or each fork would count it again (DESIGN §15).
  const { usage: _paidInTheOriginal, ...metadata } = node.metadata;
  return {
    id: node.id,
    createdAt: node.created_at,
    role,
    content: node.output,
    parentId: role === 'tool' ? null : node.predecessor,
    ...(role === 'tool' ? { calledBy: node.caller || null } : {}),
    name: node.name,
    input: node.input,
    metadata,
  };
}

/** The branch root → head with each message's tool calls, cut into the turns that added them. */
function conversationTurns(ctx: StoreContext, sessionId: string, headId: string, commits: readonly TurnCommitInfo[]): ImportNode[][] {
  const session = openSession(ctx, sessionId);
  const head = session.graph.get(headId);
  if (!head || !isConversationMessage(head)) throw new InvalidInputError(`${headId} is not a message of this session`);
  const nodes: StoredNode[] = [];
  for (const node of session.graph.branchTo(headId)) {
    nodes.push(session.graph.full(node));
    for (const call of session.graph.toolCallsOf(node.id)) nodes.push(session.graph.full(call));
  }
  const turnOf = new Map<string, number>();
  commits.forEach((commit, index) => commit.nodeIds.forEach((id) => turnOf.set(id, index)));
  const turns = new Map<number, ImportNode[]>();
  for (const node of nodes.sort((a, b) => a.seq - b.seq)) {
    const at = turnOf.get(node.id) ?? commits.length;
    turns.set(at, [...(turns.get(at) ?? []), importNodeOf(node)]);
  }
  return [...turns.entries()].sort((a, b) => a[0] - b[0]).map(([, turn]) => turn);
}

/** The turn's head: the last message (by write order) the turns up to it added. */
function lastMessageUpTo(session: OpenSession, upTo: readonly TurnCommitInfo[]): string | null {
  let last: StoredNode | null = null;
  for (const commit of upTo) {
    for (const id of commit.nodeIds) {
      const node = session.graph.get(id);
      if (node && isConversationMessage(node) && (!last || node.seq > last.seq)) last = node;
    }
  }
  return last?.id ?? null;
}

function checkInput(input: ForkAtTurnInput): void {
  if ((input.turn === undefined) === (input.nodeId === undefined)) throw new InvalidInputError('give either turn or nodeId');
  if (input.turn !== undefined) assertTurnNumber(input.turn);
  if (input.nodeId !== undefined) assertNodeId(input.nodeId);
  if (input.code !== undefined && input.code !== 'worktree' && input.code !== 'branch') throw new InvalidInputError('code must be worktree or branch');
  if (input.worktree != null && (typeof input.worktree !== 'string' || input.worktree.trim() === '')) throw new InvalidInputError('worktree must be a folder path');
  if (input.worktree != null && input.code === 'branch') throw new InvalidInputError('a worktree folder is for code: worktree only');
}

export async function forkAtTurn(ctx: StoreContext, sessionId: string, input: ForkAtTurnInput, steps: ForkSteps): Promise<ForkResult> {
  checkInput(input);
  const commits = await turnCommits(ctx, sessionId);
  const target = input.turn !== undefined ? commits.find((commit) => commit.turn === input.turn) : commits.find((commit) => commit.nodeIds.includes(input.nodeId!));
  if (!target) throw new NotFoundError(input.turn !== undefined ? `this session has no turn ${input.turn}` : `no turn of this session added ${input.nodeId}`);
  const upTo = commits.filter((commit) => commit.turn <= target.turn);

  const origin = await withSession(ctx, sessionId, async (session) => {
    const headId = input.nodeId ?? lastMessageUpTo(session, upTo);
    if (!headId) throw new PreconditionError(`turn ${target.turn} has no message to fork from`);
    const projectId = ctx.registry.get(sessionId)!.project_id;
    const turns = conversationTurns(ctx, sessionId, headId, upTo);
    if (projectId === DEFAULT_PROJECT_ID || !ctx.projects.has(projectId)) return { projectId: DEFAULT_PROJECT_ID, folder: null, turns, headId, title: session.meta.title };
    // The project's own folder, also when forking a fork: its worktree shares the project's commits, and a new
    // worktree must stay out of the project itself (not only out of the fork's worktree).
    const where = await ctx.projects.workdirState(projectId);
    if (where.state === 'missing') throw new PreconditionError(`the project folder is missing (${where.path}); repair it before forking its code`);
    return { projectId, folder: where.path, turns, headId, title: session.meta.title };
  });

  const forkId = newSessionId();
  let fork: ForkInfo = { of: sessionId, turn: target.turn, projectCommit: null, branch: null, worktree: null, projectFolder: null };
  if (origin.folder) {
    const code = input.code ?? 'worktree';
    const worktree = code === 'worktree' ? await checkForkWorktreePath(input.worktree?.trim() || defaultForkWorktree(origin.folder, forkId), origin.folder, ctx.allowedRoots) : null;
    const sha = await projectCommitAt(origin.folder, commits, target.turn);
    const branch = forkBranchName(forkId);
    await addForkCode(origin.folder, { sha, branch, worktree });
    fork = { ...fork, projectCommit: sha, branch, worktree, projectFolder: origin.folder };
  }
  try {
    await steps.importSession({
      id: forkId,
      source: '',
      title: `${origin.title || sessionId} (fork at turn ${target.turn})`,
      turns: origin.turns,
      headId: origin.headId,
      meta: { fork: forkMeta(fork) },
    });
    const row = origin.projectId === DEFAULT_PROJECT_ID ? toRow(ctx, ctx.registry.get(forkId)!) : await steps.moveFromHome(forkId, origin.projectId);
    return { session: row, fork };
  } catch (error) {
    // No fork without its conversation: the worktree and branch just made go again.
    if (fork.projectFolder) await undoForkCode(fork).catch(() => undefined);
    throw error;
  }
}

async function undoForkCode(fork: ForkInfo): Promise<void> {
  if (fork.worktree) await removeForkWorktree(fork.projectFolder!, fork.worktree, [fork.worktree]);
  if (fork.branch) await runGit(fork.projectFolder!, ['branch', '-D', fork.branch], { okCodes: [0, 1] });
}
