import { LRUCache } from 'lru-cache';
import type { Registry } from '../registry/registry.js';
import type { RegistryWriter } from '../registry/index-file.js';
import type { LocationsState } from './locations.js';
import type { StoreEvents } from '../events.js';
import type { ChangeFeed } from '../changes/change-feed.js';
import type { KeyedLock } from '../../fs/keyed-lock.js';
import type { RepackQueue } from '../repo/repack.js';
import type { CommitState } from '../repo/session-git.js';
import type { SessionGraph } from '../dag/graph.js';
import type { TitleModel } from '../titles/title-model.js';
import type { ProjectStore, ProjectTurnSnapshot } from '../projects/index.js';
import type { FileRecovery } from '../recovery/file-recovery.js';
import type { Redactor, SessionMeta } from '../types.js';

/** A session loaded from disk: what every read and write of it works on. */
export interface OpenSession {
  id: string;
  dir: string;
  meta: SessionMeta;
  graph: SessionGraph;
  /** history/ file name per node id */
  fileNames: Map<string, string>;
  seqWidth: number;
  commit: CommitState | null;
  /** history/ files written since the commit state was loaded, not yet committed */
  uncommitted: string[];
  /** first-parent depth of the head commit (session init = 0), once known */
  headDepth: number | null;
}

/** A turn between begin and finalize: what the project looked like when it started. */
export interface RunningTurn {
  turn: number;
  projectId: string;
  projectPath: string | null;
  snapshot: ProjectTurnSnapshot | null;
  /** seconds (ctx.now) of the begin or the newest node written since: the idle sweep reads it */
  lastActivityAt: number;
  /** a turn the server runs itself (the chat), bounded by its own model timeout: never swept */
  selfTimed: boolean;
}

export interface StoreContext extends LocationsState {
  stateDir: string;
  trustedRoots: string[];
  registry: Registry;
  writer: RegistryWriter;
  events: StoreEvents;
  /** users/<id>/changes/: every write of the history, appended from the events (SessionStore.open) */
  changes: ChangeFeed;
  locks: KeyedLock;
  cache: LRUCache<string, OpenSession>;
  repack: RepackQueue;
  titleModel: TitleModel | null;
  /** whether agent sessions' prompts go to the title model too (titles/title-model.ts isAgentSession); switchable per user at run time */
  titleAgentSessions: boolean;
  projects: ProjectStore;
  recovery: FileRecovery;
  /** allowed roots for project folders and extra working directories */
  allowedRoots: string[];
  turns: Map<string, RunningTurn>;
  now: () => number;
  /** the cap on one message (message-size.ts) */
  maxMessageBytes: number;
  /** applied to every message on the way in; switchable per user at run time */
  redactor: Redactor | null;
  /** background work (model titles, the snapshot after a rebuild) for idle(): add with runInBackground */
  background: Set<Promise<unknown>>;
}

/** Work that outlives the call that started it: idle() and close() wait for it. It must not reject. */
export function runInBackground(ctx: Pick<StoreContext, 'background'>, job: Promise<void>): void {
  ctx.background.add(job);
  void job.finally(() => ctx.background.delete(job));
}
