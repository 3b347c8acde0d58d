import { posix } from 'node:path';
import { InvalidInputError, NotFoundError, type BranchMessage, type SessionStore } from '../store/index.js';
import { newAgentSessionId } from './agent-ids.js';
import { claudeCodeTranscript, claudeProjectSlug } from './claude-code-transcript.js';
import { codexRollout, codexRolloutPath } from './codex-rollout.js';
import { resumeEntries } from './conversation.js';
import { resumeFingerprints, type ResumeAgent } from './resume-fingerprints.js';
import { addResumeLink } from './resume-links.js';

export interface ResumeRequest {
  sessionId: string;
  /** the turn to continue from; omitted: the current branch as it is now */
  turn?: number;
  agent: ResumeAgent;
  /** the absolute folder the agent will run in */
  cwd: string;
  now?: Date;
}

/** A transcript ready to be written where the agent looks for it, and the command that continues it. */
export interface ResumeFile {
  agent: ResumeAgent;
  agentSessionId: string;
  sessionId: string;
  /** the message the continued run hangs from */
  nodeId: string;
  turn: number;
  cwd: string;
  /** where it goes: under the home folder (Claude Code) or under CODEX_HOME (Codex), `/`-separated */
  relativePath: string;
  /** `~/.claude` or `$CODEX_HOME` */
  root: '~/.claude' | '$CODEX_HOME';
  fileName: string;
  content: string;
  /** the command that continues it, run in `cwd` */
  command: string;
  /** how many messages it holds */
  messages: number;
}

type ResumeStore = Pick<SessionStore, 'getSession' | 'getBranch' | 'listCommits' | 'branchAt'>;

/** The branch as turn `turn`'s commit holds it, and its number; the latest turn when none is given. */
async function branchAtTurn(store: ResumeStore, sessionId: string, turn: number | undefined): Promise<{ messages: BranchMessage[]; turn: number }> {
  const detail = await store.getSession(sessionId);
  if (turn === undefined) return { messages: await store.getBranch(sessionId), turn: detail.turnCount };
  if (!Number.isSafeInteger(turn) || turn < 1) throw new InvalidInputError('turn must be a positive integer');
  if (turn > detail.turnCount) throw new InvalidInputError(`there is no turn ${turn}: the last turn is ${detail.turnCount}`);
  let cursor: string | null = null;
  do {
    const page = await store.listCommits(sessionId, { limit: 200, cursor });
    const found = page.commits.find((commit) => commit.turn === turn);
    if (found) return { messages: (await store.branchAt(sessionId, found.sha)).messages, turn };
    if (page.commits.at(-1) && page.commits.at(-1)!.turn < turn) break;
    cursor = page.nextCursor;
  } while (cursor);
  throw new NotFoundError(`no turn ${turn} in this session`);
}

const quote = (value: string): string => (/^[A-Za-z0-9_./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

/**
 * DESIGN §14 "Resume in the agent": the branch up to a turn in the agent's own transcript format,
 * under a new agent session id, and a link so the proxy records the continued run as a branch
 * of this session from that turn. Nothing is written to the agent's folders here: the CLI writes
 * the file on its machine, the page offers it as a download.
 */
export async function prepareResume(store: ResumeStore, link: { dataDir: string; userId: string }, request: ResumeRequest): Promise<ResumeFile> {
  if (!posix.isAbsolute(request.cwd)) throw new InvalidInputError('the folder to resume in must be an absolute path');
  const { messages, turn } = await branchAtTurn(store, request.sessionId, request.turn);
  const entries = resumeEntries(messages);
  const last = entries.at(-1);
  if (!last) throw new InvalidInputError('there is no conversation to resume at that turn');
  const agentSessionId = newAgentSessionId();
  const now = request.now ?? new Date();
  const cwd = request.cwd;
  const content = request.agent === 'claude' ? claudeCodeTranscript(entries, { agentSessionId, cwd }) : codexRollout(entries, { agentSessionId, cwd, now });
  const relativePath = request.agent === 'claude' ? `projects/${claudeProjectSlug(cwd)}/${agentSessionId}.jsonl` : codexRolloutPath(agentSessionId, now);
  addResumeLink(link.dataDir, link.userId, {
    agent: request.agent,
    agentSessionId,
    sessionId: request.sessionId,
    nodeId: last.nodeId,
    turn,
    createdAt: now.getTime(),
    fingerprints: resumeFingerprints(request.agent, entries),
  });
  const resume = request.agent === 'claude' ? `claude --resume ${agentSessionId}` : `codex resume ${agentSessionId}`;
  return {
    agent: request.agent,
    agentSessionId,
    sessionId: request.sessionId,
    nodeId: last.nodeId,
    turn,
    cwd,
    relativePath,
    root: request.agent === 'claude' ? '~/.claude' : '$CODEX_HOME',
    fileName: posix.basename(relativePath),
    content,
    command: `cd ${quote(cwd)} && ${resume}`,
    messages: entries.length,
  };
}
