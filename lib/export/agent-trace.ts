import { createHash } from 'node:crypto';
import { projectCommitRanges, promptText, sessionTurnPrompts, type SessionStore } from '../store/index.js';

/**
 * A session's attribution as Agent Trace records (cursor/agent-trace, agent-trace.dev, schema
 * trace-record v0.1), one JSON record per line: per project commit of the session, the files
 * and line ranges it added, attributed to the agent's model; the session, turn and prompt go
 * in `metadata`, our vendor data. Beside the session's JSON export (`?format=agent-trace`).
 */

export const AGENT_TRACE_VERSION = '0.1';
/** The key of our vendor data in a record's `metadata`. */
export const AGENT_TRACE_METADATA_KEY = 'dev.entity-memory';
const TOOL = { name: 'entity-memory', version: '0.1.0' };

type TraceSource = Pick<SessionStore, 'getSession' | 'listCommits' | 'getNodesById' | 'listProjects' | 'allowedRoots'>;

export interface AgentTraceRecord {
  version: string;
  id: string;
  timestamp: string;
  vcs: { type: 'git'; revision: string };
  tool: { name: string; version: string };
  files: Array<{ path: string; conversations: Array<{ contributor: { type: 'ai'; model_id?: string }; ranges: Array<{ start_line: number; end_line: number }> }> }>;
  metadata: Record<string, unknown>;
}

/** The same record always has the same id: a UUID (version 4 layout) from the session and the commit. */
function recordId(sessionId: string, sha: string): string {
  const hex = createHash('sha256').update(`${sessionId}\n${sha}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The records, oldest turn first; none for a session without project commits (or in Home). */
export async function agentTraceRecords(source: TraceSource, sessionId: string): Promise<AgentTraceRecord[]> {
  const session = await source.getSession(sessionId);
  const turns = (await sessionTurnPrompts(source, sessionId)).filter(({ turn }) => turn.projectCommit);
  if (turns.length === 0) return [];
  const ranges = new Map((await projectCommitRanges(source, session.projectId, turns.map(({ turn }) => turn.projectCommit!))).map((commit) => [commit.sha, commit]));
  const records: AgentTraceRecord[] = [];
  for (const { turn, prompt } of turns) {
    const commit = ranges.get(turn.projectCommit!);
    if (!commit || commit.files.length === 0) continue;
    records.push({
      version: AGENT_TRACE_VERSION,
      id: recordId(sessionId, commit.sha),
      timestamp: new Date(commit.createdAt).toISOString(),
      vcs: { type: 'git', revision: commit.sha },
      tool: TOOL,
      files: commit.files.map((file) => ({ path: file.path, conversations: [{ contributor: { type: 'ai', ...(commit.agent ? { model_id: commit.agent } : {}) }, ranges: file.ranges }] })),
      metadata: {
        [AGENT_TRACE_METADATA_KEY]: { session_id: sessionId, turn: turn.turn, ...(prompt ? { message_id: prompt.id, prompt: promptText(prompt) } : {}) },
      },
    });
  }
  return records;
}

/** JSON Lines, a record a line. */
export async function* agentTraceJsonl(source: TraceSource, sessionId: string): AsyncGenerator<string> {
  for (const record of await agentTraceRecords(source, sessionId)) yield `${JSON.stringify(record)}\n`;
}
