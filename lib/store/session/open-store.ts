import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LRUCache } from 'lru-cache';
import { DIR_MODE } from '../../fs/atomic-write.js';
import { KeyedLock } from '../../fs/keyed-lock.js';
import { StoreEvents, type StoreEvent } from '../events.js';
import { ChangeFeed } from '../changes/change-feed.js';
import { Registry } from '../registry/registry.js';
import { DEBOUNCE_MS, RegistryWriter } from '../registry/index-file.js';
import { RepackQueue } from '../repo/repack.js';
import { ProjectStore } from '../projects/index.js';
import { FileRecovery } from '../recovery/file-recovery.js';
import { nowSeconds } from '../time.js';
import { maxMessageBytesFromEnv } from '../dag/message-size.js';
import type { TitleModel } from '../titles/title-model.js';
import type { Redactor } from '../types.js';
import { loadLocations } from './locations.js';
import { startUp, type StartupReport } from './startup.js';
import type { OpenSession, StoreContext } from './store-context.js';

/** Opening a user's store: its options, the context every operation gets, start-up and the change feed's one writer. */

export interface SessionStoreOptions {
  /** an OpenProgram state directory (sessions/, projects/) */
  stateDir: string;
  /** the user's workspace: default project "Home" and the first allowed root */
  workspaceRoot?: string;
  /** roots outside the state directory where session repos and projects may live */
  allowedRoots?: string[];
  /** LRU cap of open sessions; default OPENPROGRAM_SESSION_CACHE_CAP or 256 */
  cacheCap?: number;
  /** what the open sessions may hold in memory, in characters of node files (default 64 Mi) */
  cacheChars?: number;
  titleModel?: TitleModel | null;
  /** agent sessions (not the web chat's) titled by the model too; default true, the server passes each user's setting */
  titleAgentSessions?: boolean;
  /** shared across the stores of one process so repacks never pile up */
  repackQueue?: RepackQueue;
  debounceMs?: number;
  /** bytes of registry log after which it is compacted into index.json (default 4 MB) */
  compactBytes?: number;
  /** compaction timer when anything was logged since the last snapshot (default 60 s) */
  compactIntervalMs?: number;
  /** the cap on one message's bytes; default OPENPROGRAM_MAX_MESSAGE_BYTES or 1 MiB */
  maxMessageBytes?: number;
  /** seconds; injectable so tests can age sessions */
  now?: () => number;
  /** secrets out of every message on the way in (lib/redact's redactMessage); default none */
  redactor?: Redactor | null;
  /** a turn with no activity this long (ms) is ended by itself; 0 turns the sweep off. Default OPENPROGRAM_TURN_IDLE_MS or 10 minutes */
  turnIdleMs?: number;
}

const DEFAULT_TURN_IDLE_MS = 10 * 60_000;

/** OPENPROGRAM_TURN_IDLE_MS: a non-negative integer (0: never), else the default. */
export function turnIdleMsFromEnv(value = process.env['OPENPROGRAM_TURN_IDLE_MS']): number {
  if (value === undefined || value.trim() === '') return DEFAULT_TURN_IDLE_MS;
  const ms = Number(value);
  return Number.isSafeInteger(ms) && ms >= 0 ? ms : DEFAULT_TURN_IDLE_MS;
}

const DEFAULT_CACHE_CHARS = 64 * 1024 * 1024;

function cacheCapFromEnv(): number {
  const value = Number(process.env['OPENPROGRAM_SESSION_CACHE_CAP']);
  return Number.isInteger(value) && value > 0 ? value : 256;
}

/** The context of a state directory, after start-up (recovery, migrations, the registry) is done. */
export async function openStoreContext(options: SessionStoreOptions): Promise<{ ctx: StoreContext; startup: StartupReport; turnIdleMs: number }> {
  const stateDir = resolve(options.stateDir);
  const sessionsDir = join(stateDir, 'sessions');
  mkdirSync(sessionsDir, { recursive: true, mode: DIR_MODE });
  const workspaceRoot = resolve(options.workspaceRoot ?? join(stateDir, 'workspace'));
  const allowedRoots = [workspaceRoot, ...(options.allowedRoots ?? []).map((root) => resolve(root))];
  const trustedRoots = [stateDir, ...allowedRoots];
  const projects = await ProjectStore.open({ stateDir, workspaceRoot, allowedRoots });
  const registry = new Registry();
  const { trusted, untrusted } = loadLocations(sessionsDir, trustedRoots);
  const ctx: StoreContext = {
    stateDir,
    sessionsDir,
    trustedRoots,
    registry,
    writer: new RegistryWriter(sessionsDir, registry, {
      debounceMs: options.debounceMs ?? DEBOUNCE_MS,
      compactBytes: options.compactBytes,
      compactIntervalMs: options.compactIntervalMs,
    }),
    events: new StoreEvents(),
    changes: new ChangeFeed(stateDir),
    locks: new KeyedLock(),
    cache: new LRUCache<string, OpenSession>({
      max: options.cacheCap ?? cacheCapFromEnv(),
      // One user's open sessions stay within a budget however many messages they hold; a
      // session larger than all of it is read from disk for each call instead of kept.
      maxSize: options.cacheChars ?? DEFAULT_CACHE_CHARS,
      sizeCalculation: (session) => Math.max(1, session.graph.retainedChars),
    }),
    locations: trusted,
    untrustedLocations: untrusted,
    repack: options.repackQueue ?? new RepackQueue(),
    titleModel: options.titleModel ?? null,
    titleAgentSessions: options.titleAgentSessions ?? true,
    projects,
    recovery: new FileRecovery(stateDir),
    allowedRoots,
    turns: new Map(),
    now: options.now ?? nowSeconds,
    maxMessageBytes: options.maxMessageBytes ?? maxMessageBytesFromEnv(),
    redactor: options.redactor ?? null,
    background: new Set(),
  };
  // Before anything can write (start-up itself resumes migrations): every event is a record.
  ctx.events.on('event', (event) => recordChange(ctx.changes, event));
  try {
    const startup = await startUp(ctx);
    // What a crash cut short between its files and its event: read again whole.
    for (const id of new Set([...startup.reconciled, ...startup.migrations.resumed])) ctx.changes.append(id, ctx.registry.has(id) ? 'created' : 'deleted');
    return { ctx, startup, turnIdleMs: options.turnIdleMs ?? turnIdleMsFromEnv() };
  } catch (error) {
    ctx.changes.close();
    await ctx.writer.abandon();
    throw error;
  }
}

/**
 * The one place a write of the history becomes a change-feed record: every writer (API, chat,
 * proxy, import, `--watch`, migration) emits its store events, so none can pass the feed by.
 */
function recordChange(changes: ChangeFeed, event: StoreEvent): void {
  if (event.type === 'message_appended') {
    const { message } = event.data;
    // A large message's event carries its stub: consumers read the node itself.
    changes.append(event.data.sessionId, 'nodes', { nodeIds: [message.id], ...(message.truncated ? {} : { message }) });
  }
  else if (event.type === 'session_created') changes.append(event.data.id, 'created');
  else if (event.type === 'session_updated') {
    if ('title' in event.data) changes.append(event.data.id, 'session');
  } else if (event.type === 'session_deleted') changes.append(event.data.id, 'deleted');
  // a note's words are indexed with the session read again (DESIGN §16)
  else if (event.type === 'note_changed') changes.append(event.data.sessionId, 'created');
}

/** The roots an admin gave this user, after the workspace root: from the next call on. */
export function setExtraRoots(ctx: StoreContext, roots: readonly string[]): void {
  const workspace = ctx.projects.workspaceRoot;
  const next = [workspace, ...roots.map((root) => resolve(root)).filter((root) => root !== workspace)];
  ctx.projects.setAllowedRoots(next);
  ctx.allowedRoots = next;
  ctx.trustedRoots = [ctx.stateDir, ...next];
}
