/**
 * What the crash test tracks between kills: its options and figures, the sessions and projects it
 * expects to find after a restart, and the seeded PRNG that makes a run repeatable.
 */
export interface CrashOptions {
  kills: number;
  port: number;
  /** the test model server (chat's model and the proxy's upstream); by default port + 1 */
  modelPort?: number;
  seed: number;
  clients?: number;
  /** where the data directory goes (removed afterwards when the run is clean) */
  scratch?: string;
  log?: (line: string) => void;
}

export interface CrashFigures {
  kills: number;
  ops: number;
  acked: number;
  sessions: number;
  appends: number;
  commits: number;
  /** acknowledged chat turns (chat.send whose reply is in) and chat retries */
  chats: number;
  /** proxied exchanges whose recording was seen before the kill */
  proxied: number;
  /** acknowledged retries (branch.retry, chat.retry) */
  retries: number;
  /** acknowledged messages looked up in the search index after a restart */
  searched: number;
  /** of those, not found (or found in a deleted session): the index disagreeing with git */
  searchStale: number;
  /** operations answered with a 4xx or not acknowledged in time (a CONFLICT on a turn a kill left running) */
  refused: number;
  /** acknowledged renames and (un)archives (their values are checked after every restart) */
  updates: number;
  /** acknowledged agent commits in the project repositories (turns of project-bound sessions) */
  projectCommits: number;
  /** project turns whose agent commit was skipped (a file a killed turn left makes the tree dirty) */
  projectSkipped: number;
  /** acknowledged work gone after a restart: a session, a node, a commit, a title or archived flag */
  lost: number;
  /** a broken invariant: unparsable JSON, registry ≠ meta.json, a half session, git fsck, a 5xx, search stale */
  violations: number;
  errors5xx: number;
  problems: string[];
}

export type Wire = 'chat' | 'responses' | 'anthropic';

export interface TrackedSession {
  id: string;
  client: number;
  /** in every message written to it (and so in the model's reply): what search must find */
  tag: string;
  /** api: written through the procedures; proxy: recorded from proxied exchanges only */
  kind: 'api' | 'proxy';
  /** a proxied session's conversation so far, as its agent would send it again */
  history: { role: 'user' | 'assistant'; content: string }[];
  created: 'pending' | 'acked';
  deleted: 'no' | 'pending' | 'acked';
  /** acknowledged appends: node ids */
  nodes: string[];
  assistants: string[];
  /** acknowledged turn commits with the nodes acknowledged before the finalize was sent */
  commits: { sha: string; nodes: string[] }[];
  touched: boolean;
  /** deleted, and search already shown to find nothing of it */
  searchedGone?: boolean;
  /**
   * The last acknowledged title and archived flag (api sessions; a proxied one is named by the
   * title model, so null), and the value of a rename or (un)archive a kill cut off: it may or may
   * not have happened, so after the restart either is right and the kept one is adopted.
   */
  title: string | null;
  archived: boolean;
  /** the project a session was created in (its repo under sessions/projects/<pid>/), or null for Home */
  project: string | null;
  pendingTitle?: string;
  pendingArchived?: boolean;
  /** one operation at a time per session, so its expected state is never ambiguous */
  busy: boolean;
}

/** One of the clients writing concurrently: a user (the first has two clients) and its Bearer token. */
export interface Client {
  index: number;
  userId: string;
  token: string;
}

/** One client's project: a folder in its user's workspace with its own git, used by that client only. */
export interface TrackedProject {
  id: string;
  /** the folder, a git repository with a first commit of the person's */
  dir: string;
  /** acknowledged agent commits: each wrote one file with this content */
  commits: { sha: string; file: string; content: string }[];
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same operation mix. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A request cut off because the server was killed: the operation may or may not have happened. */
export class Killed extends Error {}
