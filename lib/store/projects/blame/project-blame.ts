import type { Message, TurnCommitInfo } from '../../types.js';
import { blameCache } from './blame-cache.js';
import { blamePath, gitBlame, type GitBlameCommit } from './git-blame.js';
import { projectFolder, type ProjectLookup } from './project-files.js';
import { cachedTurnPrompts, turnPromptsOf, type Prompt, type TurnPrompt } from './turn-prompt-cache.js';

export { promptText } from './turn-prompt-cache.js';

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
  /** where the store keeps its state: blame keeps its cache under it (blame-cache.ts) */
  readonly stateDir?: string;
  hasSession(id: string): boolean;
  listCommits(sessionId: string, options?: { limit?: number; cursor?: string | null }): Promise<{ commits: TurnCommitInfo[]; nextCursor: string | null }>;
  getNodesById(sessionId: string, ids: readonly string[]): Promise<Message[]>;
}

export async function projectBlame(sources: BlameSources, input: { projectId: string; path: string; rev?: string }): Promise<ProjectBlame> {
  const project = await projectFolder(sources, input.projectId);
  const disk = sources.stateDir ? { stateDir: sources.stateDir, projectId: project.projectId } : undefined;
  // The sessions the kept blame names read their new turns while git works: the blame after a turn mostly names the same ones.
  const early = new Map(blameCache.sessionsAtTip(project.path, blamePath(input.path)).filter((id) => sources.hasSession(id)).map((id) => [id, cachedTurnPrompts(sources, id)]));
  for (const reading of early.values()) reading.catch(() => undefined);
  const blame = await gitBlame(project.path, input.path, input.rev, { repo: project.path, ...(disk ? { disk } : {}) });
  const prompts = await promptsOf(sources, [...blame.commits.values()], early);
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

/** The prompt of each agent commit, by sha: one pass over each session's turns (a page of 200 per git process). */
async function promptsOf(sources: BlameSources, commits: GitBlameCommit[], early: ReadonlyMap<string, Promise<readonly TurnPrompt[]>>): Promise<Map<string, Prompt>> {
  const bySession = new Map<string, GitBlameCommit[]>();
  for (const commit of commits) {
    if (commit.by !== 'agent' || !commit.sessionId || !sources.hasSession(commit.sessionId)) continue;
    bySession.set(commit.sessionId, [...(bySession.get(commit.sessionId) ?? []), commit]);
  }
  const out = new Map<string, Prompt>();
  await Promise.all(
    [...bySession].map(async ([sessionId, wanted]) => {
      const turns = early.get(sessionId) ?? cachedTurnPrompts(sources, sessionId);
      for (const [sha, prompt] of await sessionPrompts(turns, wanted).catch(() => new Map<string, Prompt>())) out.set(sha, prompt);
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
  return turnPromptsOf(turns, nodes, null);
}

async function sessionPrompts(reading: Promise<readonly TurnPrompt[]>, wanted: GitBlameCommit[]): Promise<Map<string, Prompt>> {
  const turns = await reading;
  const byProjectCommit = new Map(turns.filter((entry) => entry.projectCommit).map((entry) => [entry.projectCommit!, entry]));
  const byNumber = new Map(turns.map((entry) => [entry.turn, entry]));
  const out = new Map<string, Prompt>();
  for (const commit of wanted) {
    // The session commit that names this project commit; the trailer's turn number when none does (an imported turn).
    const prompt = (byProjectCommit.get(commit.sha) ?? (commit.turn !== null ? byNumber.get(commit.turn) : undefined))?.prompt;
    if (prompt) out.set(commit.sha, prompt);
  }
  return out;
}
