import { join, resolve } from 'node:path';
import { LRUCache } from 'lru-cache';
import type { Registry } from '../registry/registry.js';
import type { RegistryWriter } from '../registry/index-file.js';
import type { StoreEvents } from '../events.js';
import type { KeyedLock } from '../../fs/keyed-lock.js';
import { isInside as isInsidePath } from '../../fs/real-path.js';
import type { RepackQueue } from '../repo/repack.js';
import type { CommitState } from '../repo/session-git.js';
import type { SessionGraph } from '../dag/graph.js';
import type { TitleModel } from '../titles/title-model.js';
import type { ProjectStore, ProjectTurnSnapshot } from '../projects/index.js';
import type { FileRecovery } from '../recovery/file-recovery.js';
import type { RegistryEntry, SessionMeta, SessionRow } from '../types.js';
import { secondsToMs } from '../time.js';

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
}

export interface StoreContext {
  stateDir: string;
  sessionsDir: string;
  trustedRoots: string[];
  registry: Registry;
  writer: RegistryWriter;
  events: StoreEvents;
  locks: KeyedLock;
  cache: LRUCache<string, OpenSession>;
  /** repo directory of sessions that are not at sessions/<sid> (locations.json) */
  locations: Map<string, string>;
  /** locations.json entries outside the trusted roots: kept in the file, never used */
  untrustedLocations: Map<string, unknown>;
  repack: RepackQueue;
  titleModel: TitleModel | null;
  projects: ProjectStore;
  recovery: FileRecovery;
  /** allowed roots for project folders and extra working directories */
  allowedRoots: string[];
  turns: Map<string, RunningTurn>;
  now: () => number;
  /** background work (model titles) for idle() */
  background: Set<Promise<unknown>>;
}

export function defaultRepoDir(ctx: Pick<StoreContext, 'sessionsDir'>, sessionId: string): string {
  return join(ctx.sessionsDir, sessionId);
}

/** A project's session repo: sessions/projects/<pid>/<sid> (recorded in locations.json). */
export function projectRepoDir(ctx: Pick<StoreContext, 'sessionsDir'>, projectId: string, sessionId: string): string {
  return join(ctx.sessionsDir, 'projects', projectId, sessionId);
}

export function repoDirOf(ctx: Pick<StoreContext, 'sessionsDir' | 'locations'>, sessionId: string): string {
  return ctx.locations.get(sessionId) ?? defaultRepoDir(ctx, sessionId);
}

/** True when `path` is one of `roots` or inside one (lexically; callers resolve real paths first). */
export function isInside(path: string, roots: readonly string[]): boolean {
  const target = resolve(path);
  return roots.some((root) => isInsidePath(target, resolve(root)));
}

export function toRow(ctx: { projects: Pick<ProjectStore, 'nameOf'> }, entry: RegistryEntry): SessionRow {
  return {
    id: entry.id,
    agentId: entry.agent_id,
    title: entry.title,
    createdAt: secondsToMs(entry.created_at),
    updatedAt: secondsToMs(entry.updated_at),
    source: entry.source,
    channel: entry.channel,
    accountId: entry.account_id,
    peerDisplay: entry.peer_display,
    peerId: entry.peer_id,
    pinned: entry.pinned,
    archived: entry.archived,
    group: entry.group,
    status: entry.status,
    unread: entry.unread,
    preview: entry.preview,
    project: ctx.projects.nameOf(entry.project_id),
  };
}

const ROW_FIELD: Record<string, keyof SessionRow> = {
  agent_id: 'agentId',
  title: 'title',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  source: 'source',
  channel: 'channel',
  account_id: 'accountId',
  peer_display: 'peerDisplay',
  peer_id: 'peerId',
  pinned: 'pinned',
  archived: 'archived',
  group: 'group',
  status: 'status',
  unread: 'unread',
  preview: 'preview',
  project_id: 'project',
};

/** The changed registry fields as a partial row, for session_updated. */
export function changedRowFields(ctx: { projects: Pick<ProjectStore, 'nameOf'> }, entry: RegistryEntry, changed: string[]): Partial<SessionRow> {
  const row = toRow(ctx, entry);
  const out: Record<string, unknown> = {};
  for (const key of changed) {
    const field = ROW_FIELD[key];
    if (field) out[field] = row[field];
  }
  return out as Partial<SessionRow>;
}
