import type { Message, TurnCommitInfo } from '../../types.js';
import { gitBlame, type GitBlameCommit } from './git-blame.js';
import { projectFolder, type ProjectLookup } from './project-files.js';

/**
 * project.blame (DESIGN §14): each line of a project file → the commit that last changed it →
 * the session, turn, agent and the prompt that asked for it, or a person's commit. The prompt
 * comes from the user's own sessions only: a session of someone else (or deleted) keeps its
 * trailers' session and turn, without prompt or message link.
 */

export interface BlameLine {
  line: number;
  text: string;
  sha: string;
  sessionId?: string;
  turn?: number;
  /** the model that made the agent commit */
  agent?: string;
  prompt?: string;
  /** the prompt's message: the session opens at it */
  messageId?: string;
  by: 'agent' | 'person';
}

export interface ProjectBlame {
  projectId: string;
  path: string;
  /** the commit blamed at */
  rev: string;
  lines: BlameLine[];
}

/** What blame reads from the user's store (the SessionStore answers all of it). */
export interface BlameSources extends ProjectLookup {
  hasSession(id: string): boolean;
  listCommits(sessionId: string, options?: { limit?: number; cursor?: string | null }): Promise<{ commits: TurnCommitInfo[]; nextCursor: string | null }>;
  getNodesById(sessionId: string, ids: readonly string[]): Promise<Message[]>;
}

/** A long prompt is cut for the gutter's tooltip; the session holds it whole. */
const PROMPT_CHARS = 2_000;

export async function projectBlame(sources: BlameSources, input: { projectId: string; path: string; rev?: string }): Promise<ProjectBlame> {
  const project = await projectFolder(sources, input.projectId);
  const blame = await gitBlame(project.path, input.path, input.rev);
  const prompts = await promptsOf(sources, [...blame.commits.values()]);
  const lines = blame.lines.map((row): BlameLine => {
    const commit = blame.commits.get(row.sha);
    if (!commit || commit.by === 'person') return { ...row, by: 'person' };
    const prompt = prompts.get(row.sha);
    return {
      ...row,
      by: 'agent',
      ...(commit.sessionId ? { sessionId: commit.sessionId } : {}),
      ...(commit.turn !== null ? { turn: commit.turn } : {}),
      ...(commit.agent ? { agent: commit.agent } : {}),
      ...(prompt ? { prompt: prompt.text, messageId: prompt.messageId } : {}),
    };
  });
  return { projectId: project.projectId, path: blame.path, rev: blame.rev, lines };
}

interface Prompt {
  text: string;
  messageId: string;
}

/** The prompt of each agent commit, by sha: one pass over each session's turns (a page of 200 per git process). */
async function promptsOf(sources: BlameSources, commits: GitBlameCommit[]): Promise<Map<string, Prompt>> {
  const bySession = new Map<string, GitBlameCommit[]>();
  for (const commit of commits) {
    if (commit.by !== 'agent' || !commit.sessionId || !sources.hasSession(commit.sessionId)) continue;
    bySession.set(commit.sessionId, [...(bySession.get(commit.sessionId) ?? []), commit]);
  }
  const out = new Map<string, Prompt>();
  await Promise.all(
    [...bySession].map(async ([sessionId, wanted]) => {
      for (const [sha, prompt] of await sessionPrompts(sources, sessionId, wanted).catch(() => new Map<string, Prompt>())) out.set(sha, prompt);
    }),
  );
  return out;
}

/** Each turn of the session (oldest first) with its prompt: the user message it added, else the one the turns before it last added (a tool round-trip continues it). */
export async function sessionTurnPrompts(sources: Pick<BlameSources, 'listCommits' | 'getNodesById'>, sessionId: string): Promise<Array<{ turn: TurnCommitInfo; prompt: Message | null }>> {
  const turns: TurnCommitInfo[] = [];
  let cursor: string | null = null;
  do {
    const page = await sources.listCommits(sessionId, { limit: 200, cursor });
    turns.push(...page.commits);
    cursor = page.nextCursor;
  } while (cursor);
  turns.reverse();
  const nodes = await sources.getNodesById(sessionId, turns.flatMap((turn) => turn.nodeIds));
  const users = new Map(nodes.filter((node) => node.role === 'user').map((node) => [node.id, node]));
  let last: Message | null = null;
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

async function sessionPrompts(sources: BlameSources, sessionId: string, wanted: GitBlameCommit[]): Promise<Map<string, Prompt>> {
  const turns = await sessionTurnPrompts(sources, sessionId);
  const byProjectCommit = new Map(turns.filter(({ turn }) => turn.projectCommit).map((entry) => [entry.turn.projectCommit!, entry]));
  const byNumber = new Map(turns.map((entry) => [entry.turn.turn, entry]));
  const out = new Map<string, Prompt>();
  for (const commit of wanted) {
    // The session commit that names this project commit; the trailer's turn number when none does (an imported turn).
    const user = (byProjectCommit.get(commit.sha) ?? (commit.turn !== null ? byNumber.get(commit.turn) : undefined))?.prompt;
    if (user) out.set(commit.sha, { text: promptText(user), messageId: user.id });
  }
  return out;
}
