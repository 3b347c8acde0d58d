/** On-disk shapes (FORMAT.md, snake_case, Unix seconds) and API shapes (camelCase, ms). */

export type NodeRole = 'user' | 'llm' | 'code';

/** One history/ file. Unknown keys are kept as they are. */
export interface StoredNode {
  id: string;
  created_at: number;
  seq: number;
  role: NodeRole | string;
  name: string;
  input: unknown;
  output: unknown;
  caller: string;
  predecessor: string | null;
  reads: string[];
  metadata: Record<string, unknown>;
  [key: string]: unknown;
}

/** meta.json: the known fields; everything else is carried through untouched. */
export interface SessionMeta {
  id: string;
  agent_id: string;
  title: string;
  source: string;
  created_at: number;
  updated_at: number;
  project_id: string;
  head_id: string | null;
  status: string;
  pinned: boolean;
  archived: boolean;
  unread: boolean;
  group: string;
  channel?: string | null;
  account_id?: string | null;
  peer_display?: string | null;
  peer_id?: string | null;
  _user_titled?: boolean;
  _auto_titled?: boolean;
  _title_gen_count?: number;
  turn_count?: number;
  workdirs?: string[];
  branches?: Record<string, BranchLabel>;
  preview?: string | null;
  [key: string]: unknown;
}

export interface BranchLabel {
  name: string;
  created_at: number;
  updated_at: number;
  [key: string]: unknown;
}

/** Where a fork came from and where its code lives. */
export interface ForkInfo {
  /** the session and turn it was forked from */
  of: string;
  turn: number;
  /** the project commit the fork's code started at; null for a session without a project */
  projectCommit: string | null;
  /** the project branch of the fork; null when no project */
  branch: string | null;
  /** the fork's own worktree: its chat and agent turns commit there; null: the project folder */
  worktree: string | null;
  /** the project folder the worktree was made from (to remove it when the fork is deleted) */
  projectFolder: string | null;
}

/** index.json entry: the 15 fields plus preview (plus project_id, ours, so listing never opens meta.json). */
export interface RegistryEntry {
  id: string;
  agent_id: string;
  title: string;
  created_at: number;
  updated_at: number;
  source: string;
  channel: string | null;
  account_id: string | null;
  peer_display: string | null;
  peer_id: string | null;
  pinned: boolean;
  archived: boolean;
  group: string;
  status: string;
  unread: boolean;
  preview: string | null;
  project_id: string;
  /** DESIGN §16, only when set: a session without tags or state keeps index.json's older shape */
  tags?: string[];
  state?: string | null;
  /** DESIGN §17, only when set: the machine a collector brought the session from */
  machine?: string;
  [key: string]: unknown;
}

/** A session's state (DESIGN §16), in its order; null is "none". Rules in organise/tags.ts. */
export const SESSION_STATES = ['active', 'review', 'done'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** The tag and state part of a list filter (DESIGN §16). */
export interface TagFilter {
  tags?: string[];
  /** all: a session holds every tag; any: at least one (default all) */
  tagMode?: 'all' | 'any';
  untagged?: boolean;
  /** 'none' matches sessions without a state */
  state?: SessionState | 'none';
}

export const SESSION_STATUSES = ['idle', 'running', 'failed', 'cancelled'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
/** The statuses a turn may end in. */
export const FINAL_STATUSES = ['idle', 'failed', 'cancelled'] as const satisfies readonly SessionStatus[];

/** How a session came in (issue 28): the person's web chat, the API, an import, or recorded by the proxy. */
export const WAYS_IN = ['web chat', 'API', 'imported', 'recorded'] as const;
export type WayIn = (typeof WAYS_IN)[number];

/** A listed row: DESIGN §5, 17 fields, times in ms; plus `agentName`, `wayIn` and `agentGroup`, derived from `agentId` and `source`. */
export interface SessionRow {
  id: string;
  agentId: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  source: string;
  channel: string | null;
  accountId: string | null;
  peerDisplay: string | null;
  peerId: string | null;
  pinned: boolean;
  archived: boolean;
  group: string;
  status: string;
  unread: boolean;
  preview: string | null;
  project: string;
  /** the agent, named the same whichever way its sessions came in (null: nobody named, as the person's own chat) */
  agentName: string | null;
  wayIn: WayIn;
  /** the agent filter's group (session.agents, `session.list {agent}`): the name, or who wrote it when nobody was named */
  agentGroup: string;
  /** the user's tags, sorted (DESIGN §16) */
  tags: string[];
  /** null (none), active, review ("Needs review") or done */
  state: SessionState | null;
  /** the machine `entity-memory collect` brought it from (DESIGN §17); null for every other way in */
  machine: string | null;
}

/** Why a turn was ended from outside: Stop pressed, or no activity for the idle limit. */
export type TurnInterruptReason = 'stopped' | 'idle';

/** How the last turn was ended from outside, as the API says it (milliseconds). */
export interface TurnInterruption {
  reason: TurnInterruptReason;
  at: number;
  /** the idle limit that ended it; null when Stop did */
  idleMs: number | null;
  /** the sentence the session shows (the turn/interrupted note's text) */
  note: string;
}

export interface SessionDetail extends SessionRow {
  headId: string | null;
  /** secrets taken out on the way in (meta.json `redacted`, DESIGN §10) */
  redacted: number;
  projectId: string;
  turnCount: number;
  workdirs: string[];
  userTitled: boolean;
  /** how the last turn was ended from outside (Stop on an agent's turn, the idle limit); null otherwise */
  interruption: TurnInterruption | null;
  /**
   * A session in Home whose agent worked in a folder that is no project of the user (DESIGN §14):
   * the folder, and whether it may be added as one (inside the allowed roots); null otherwise.
   */
  agentFolder: { path: string; addable: boolean } | null;
  /** a session forked from another's turn (DESIGN §14): where from, and its project branch and worktree; null otherwise */
  fork: ForkInfo | null;
}

/** What a redactor sees and gives back: the parts of a message written to disk. */
export interface RedactableParts {
  content: unknown;
  input?: unknown;
  metadata?: Record<string, unknown>;
}

/**
 * Secrets out of a message before it is written (DESIGN §10). Injected (lib/redact's
 * redactMessage), so the store knows no rule; null: written as given.
 */
export type Redactor = (<M extends RedactableParts>(message: M) => { message: M; count: number }) & {
  /** false: redacting any part of these values would find nothing (one check for many messages) */
  mayHoldSecret?: (values: unknown) => boolean;
  /**
   * The same redaction of many messages, done off this thread (a worker): large texts go there,
   * so that redacting them (~25 ms per MB) does not hold every other request (see redact-parts.ts).
   */
  inBackground?: <M extends RedactableParts>(messages: M[]) => Promise<{ message: M; count: number }[]>;
  /** A file's bytes redacted off this thread as lib/store's redactBytes does (a large upload); null: nothing taken out. */
  bytesInBackground?: (bytes: Uint8Array) => Promise<{ bytes: Uint8Array; count: number } | null>;
};

export type MessageRole = 'user' | 'assistant' | 'tool' | 'system';

export interface Message {
  id: string;
  seq: number;
  role: MessageRole;
  content: string;
  parentId: string | null;
  calledBy: string | null;
  name: string;
  input: unknown;
  metadata: Record<string, unknown>;
  createdAt: number;
}

/**
 * A message as the message_appended event carries it. A large one is its first characters
 * (content cut, input null, short metadata only) with `truncated: true`: read it whole with
 * message.branch or message.nodes.
 */
export type AppendedMessage = Message & { truncated?: true };

export interface BranchMessage extends Message {
  siblings: string[];
  toolCalls: Message[];
}

export interface BranchInfo {
  headId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  current: boolean;
}

export interface TurnCommitInfo {
  sha: string;
  message: string;
  createdAt: number;
  turn: number;
  nodeIds: string[];
  projectCommit: string | null;
  /** why the turn made no project commit (dirty_tree, not_a_repo, missing_folder, disabled…), from the commit's trailer */
  projectCommitSkipped: string | null;
  /** git metadata the turn put into the project (`sub/.git`, `.gitmodules`), from the commit's trailers */
  nestedGit: string[];
  /** other sessions that were writing in the project folder too: its project commit may hold their edits (DESIGN §14) */
  projectCommitSharedWith: string[];
}

export type ListScope = 'active' | 'archived' | 'all';

export interface ListFilter extends TagFilter {
  scope?: ListScope;
  pinned?: boolean;
  unread?: boolean;
  status?: string;
  source?: string;
  agentId?: string;
  /** an agent group as session.agents lists it (the agent's name whichever way in) */
  agent?: string;
  projectId?: string;
  q?: string;
}

/** One agent as the Chats page's filter offers it: its group (the name), the ways its sessions came in, and how many sessions. */
export interface AgentSummary {
  agent: string;
  wayIn: WayIn[];
  sessions: number;
}

export interface ListOptions extends ListFilter {
  limit?: number;
  cursor?: string | null;
}

export interface ListPage {
  rows: SessionRow[];
  nextCursor: string | null;
}
