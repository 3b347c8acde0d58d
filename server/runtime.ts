import { chmodSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AuthStore, InstanceKeys, isUserId, migrateProjectRoots, migrateProxyUpstreams, ProjectRootsFile, ProxyUpstreams } from '@/lib/auth/index';
import { EventHub } from '@/server/events/hub';
import { bookmarksOf, RepackQueue, SessionStore, type Redactor, type TitleModel } from '@/lib/store/index';
import { backgroundRedactor } from '@/server/background/background-thread';
import { SearchIndex, storeSource } from '@/lib/search/index';
import { ModelService } from '@/server/chat/models';
import { failInterruptedTurns } from '@/server/chat/turn-journal';
import { FileShareIndex, migrateShareLinks, parseSharingMode, shareClock, ShareLinkStore, type ShareIndex, type SharingMode } from '@/lib/share/index';
import { clusterConfigFromEnv } from '@/lib/cluster/db';
import { startClusterNode, type ClusterNode } from '@/lib/cluster/node';
import { UserGate } from '@/lib/cluster/move/index';
import { closeAllUsageSync, closeUserUsage, openUserUsage } from './usage/usage-runtime';

/**
 * Process-wide singletons, kept on globalThis: Next may load this module once for route handlers
 * and again for server components or instrumentation, and every copy must share one auth store,
 * one event hub and one session store per user.
 */
export type UserStore = SessionStore;

interface Runtime {
  dataDir: string;
  auth: AuthStore;
  /** cluster mode (OPENPROGRAM_CLUSTER_DB): Postgres, the replicas, the control channel; null for the embedded default */
  cluster: ClusterNode | null;
  /** frozen and moved-away users (a move's gate), its markers under `<data>/cluster/` */
  userGate: UserGate;
  hub: EventHub;
  userStores: Map<string, Promise<UserStore>>;
  /** one background repack queue for every user's store, so repacks never pile up */
  repackQueue: RepackQueue;
  /** stores whose open has finished: a signal handler flushes them without awaiting */
  openedStores: UserStore[];
  /** each user's full-text index (users/<id>/search.sqlite), fed by that user's store events */
  searchIndexes: Map<string, Promise<SearchIndex>>;
  /** indexes whose open has finished: closed synchronously at shutdown */
  openedIndexes: SearchIndex[];
  /** the model of chat and titles: admin settings, OPENPROGRAM_LLM_*, or a detected local server */
  models: ModelService;
  /** the recording proxy's upstreams and stored provider keys, each user's in users/<id>/proxy-upstreams.json */
  proxyUpstreams: ProxyUpstreams;
  /** the admin's instance-wide provider keys and who may use them (data/auth/instance-provider-keys.json) */
  instanceKeys: InstanceKeys;
  /** extra project roots per user: the admin's (users/<id>/project-roots.json) and OPENPROGRAM_ALLOWED_ROOTS */
  roots: ProjectRootsFile;
  /** OPENPROGRAM_ALLOWED_ROOTS read once, after the users exist */
  envRoots: Promise<void> | null;
  /** share links, each in its owner's users/<id>/share-links.json, found by id through the index (data/auth/share-index.json, or Postgres in cluster mode) */
  shareLinks: ShareLinkStore;
  /** OPENPROGRAM_SHARING, read once at start */
  sharingMode: SharingMode;
}

/** OPENPROGRAM_MAX_STREAMS_PER_USER raises or lowers the cap of open event streams (default 20). */
function streamCapFromEnv(): number | undefined {
  const value = Number(process.env.OPENPROGRAM_MAX_STREAMS_PER_USER);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

function sharingModeFromEnv(): SharingMode {
  const { mode, warning } = parseSharingMode(process.env.OPENPROGRAM_SHARING);
  if (warning) console.warn(`[share] ${warning}`);
  if (process.env.OPENPROGRAM_TEST_CLOCK_FILE) console.warn('[share] OPENPROGRAM_TEST_CLOCK_FILE is set: link expiry runs on a test clock');
  return mode;
}

const KEY = Symbol.for('entity-memory.runtime');
const holder = globalThis as typeof globalThis & { [KEY]?: Runtime };

function dataDirFromEnv(): string {
  const dataDir = resolve(process.env.OPENPROGRAM_DATA_DIR || './data');
  for (const dir of [dataDir, join(dataDir, 'users'), join(dataDir, 'workspaces')]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  // mkdir leaves an existing directory's mode alone; the data root must not be readable by others.
  chmodSync(dataDir, 0o700);
  return dataDir;
}

const PREPARED = Symbol.for('entity-memory.runtime-prepared');
const prepared = globalThis as typeof globalThis & { [PREPARED]?: Promise<void> };

/**
 * Before the first request: in cluster mode, connect to Postgres and load the auth replicas
 * (the sync reads of every request answer from them). Nothing to do, and no cost, without
 * OPENPROGRAM_CLUSTER_DB.
 */
export function prepareRuntime(): Promise<void> {
  prepared[PREPARED] ??= (async () => {
    const config = clusterConfigFromEnv();
    if (!config || holder[KEY]) return;
    const dataDir = dataDirFromEnv();
    const cluster = await startClusterNode(config, { authDir: join(dataDir, 'auth'), secret: process.env.NEXTAUTH_SECRET });
    const shareIndex = cluster.shares;
    const shareLinks = migrateInstanceWideState(dataDir);
    if (shareLinks) {
      await shareIndex.add(shareLinks.entries);
      shareLinks.finish();
    }
    createRuntime(dataDir, cluster.auth, cluster, shareIndex);
    console.log(`[entity-memory] cluster mode: instance ${config.instanceId} (${config.instanceUrl}), users and tokens in Postgres`);
  })();
  return prepared[PREPARED];
}

function runtime(): Runtime {
  const current = holder[KEY];
  if (current) return current;
  if (process.env.OPENPROGRAM_CLUSTER_DB) throw new Error('cluster mode: prepareRuntime() must finish before the first request');
  const dataDir = dataDirFromEnv();
  const shareIndex = new FileShareIndex(join(dataDir, 'auth'));
  const shareLinks = migrateInstanceWideState(dataDir);
  if (shareLinks) {
    shareIndex.addSync(shareLinks.entries);
    shareLinks.finish();
  }
  return createRuntime(dataDir, new AuthStore(join(dataDir, 'auth'), { secret: process.env.NEXTAUTH_SECRET }), null, shareIndex);
}

/**
 * Once at start: per-user state an older version kept in instance-wide files under data/auth
 * (provider keys, the admin's project roots, share links) moved into each user's own folder, so
 * a move carries it. Idempotent. The share links' old file is removed by `finish`, once the
 * caller's index holds their ids.
 */
function migrateInstanceWideState(dataDir: string): ReturnType<typeof migrateShareLinks> {
  const authDir = join(dataDir, 'auth');
  const upstreams = migrateProxyUpstreams(authDir, dataDir);
  if (upstreams > 0) console.log(`[entity-memory] moved the proxy upstreams of ${upstreams} user(s) into their own folders`);
  const roots = migrateProjectRoots(authDir, dataDir);
  if (roots > 0) console.log(`[entity-memory] moved ${roots} project root(s) into their users' folders`);
  const links = migrateShareLinks(authDir, dataDir);
  if (links && links.entries.length > 0) console.log(`[entity-memory] moved ${links.entries.length} share link(s) into their owners' folders`);
  return links;
}

function createRuntime(dataDir: string, auth: AuthStore, cluster: ClusterNode | null, shareIndex: ShareIndex): Runtime {
  const current: Runtime = {
    dataDir,
    auth,
    cluster,
    userGate: new UserGate(dataDir),
    hub: new EventHub({ maxStreamsPerUser: streamCapFromEnv() }),
    userStores: new Map(),
    repackQueue: new RepackQueue(),
    openedStores: [],
    searchIndexes: new Map(),
    openedIndexes: [],
    models: new ModelService(join(dataDir, 'auth')),
    proxyUpstreams: new ProxyUpstreams(dataDir),
    instanceKeys: new InstanceKeys(join(dataDir, 'auth')),
    roots: new ProjectRootsFile(dataDir),
    envRoots: null,
    shareLinks: new ShareLinkStore(dataDir, shareIndex, shareClock(process.env.OPENPROGRAM_TEST_CLOCK_FILE)),
    sharingMode: sharingModeFromEnv(),
  };
  // Sign-ins that end (disable, password change or reset) close their event streams at once.
  const hub = current.hub;
  current.auth.users.onAccessChange((userId) => hub.revalidate(userId));
  holder[KEY] = current;
  return current;
}

/** This process's move gate: frozen and moved-away users (server/cluster/user-gate.ts answers for it). */
export function getUserGate(): UserGate {
  return runtime().userGate;
}

/** The cluster node in cluster mode, else null (the embedded default). */
export function getClusterNode(): ClusterNode | null {
  return runtime().cluster;
}

/** `OPENPROGRAM_DATA_DIR` (default ./data), absolute, created 0700. */
export function getDataDir(): string {
  return runtime().dataDir;
}

export function getAuthStore(): AuthStore {
  return runtime().auth;
}

export function getEventHub(): EventHub {
  return runtime().hub;
}

/** Every user's share links; a link is opened by id alone, its owner's store chosen from the record. */
export function getShareLinks(): ShareLinkStore {
  return runtime().shareLinks;
}

/** Who may open share links on this instance (OPENPROGRAM_SHARING, default login). */
export function getSharingMode(): SharingMode {
  return runtime().sharingMode;
}

export function getProxyUpstreams(): ProxyUpstreams {
  return runtime().proxyUpstreams;
}

/** The admin's instance-wide provider keys; the proxy serves a user with one only when the admin's switch for them is on. */
export function getInstanceKeys(): InstanceKeys {
  return runtime().instanceKeys;
}

export function getModelService(): ModelService {
  return runtime().models;
}

/** The project roots of every user, OPENPROGRAM_ALLOWED_ROOTS loaded (its unusable entries logged) before the first answer. */
export async function getProjectRoots(): Promise<ProjectRootsFile> {
  const current = runtime();
  current.envRoots ??= current.roots
    .loadEnv(process.env.OPENPROGRAM_ALLOWED_ROOTS, (user) => (current.auth.users.get(user) ?? current.auth.users.findByEmail(user))?.id ?? null)
    .then((errors) => errors.forEach((error) => console.warn(`[roots] OPENPROGRAM_ALLOWED_ROOTS: ${error}`)));
  await current.envRoots;
  return current.roots;
}

/** After an admin changed a user's roots: the open store takes them at once. */
export async function applyProjectRoots(userId: string): Promise<void> {
  const opening = runtime().userStores.get(userId);
  if (!opening) return;
  const store = await opening.catch(() => null);
  store?.setExtraRoots((await getProjectRoots()).rootsOf(userId));
}

/**
 * The session store of one user (`<DATA>/users/<userId>`, workspace `<DATA>/workspaces/<userId>`),
 * opened on first use and shared by every request after it. Its events go to the user's streams.
 * Callers pass the id of the authenticated user only (ctx.user.id), never one from input.
 */
export function getUserStore(userId: string): Promise<UserStore> {
  if (!isUserId(userId)) return Promise.reject(new Error(`invalid user id ${JSON.stringify(userId)}`));
  // Moved away: the data directory is the new owner's; opening here would start an empty store.
  const availability = getUserGate().availability(userId);
  if (availability.kind === 'moved') return Promise.reject(new Error(`${userId} has moved to instance ${availability.owner.id}`));
  const { userStores, openedStores, dataDir, hub, repackQueue, models, searchIndexes } = runtime();
  const titleModel: TitleModel = models.titleModel;
  let opening = userStores.get(userId);
  if (!opening) {
    opening = (async () => {
      const workspaceRoot = join(dataDir, 'workspaces', userId);
      mkdirSync(workspaceRoot, { recursive: true, mode: 0o700 });
      const allowedRoots = (await getProjectRoots()).rootsOf(userId);
      const store = await SessionStore.open({ stateDir: join(dataDir, 'users', userId), workspaceRoot, allowedRoots, repackQueue, titleModel, redactor: redactorFor(userId), titleAgentSessions: titlesAgentSessions(userId) });
      hub.attach(userId, store.events);
      // Bookmarks listen from the start: a session deleted before any bookmark call still takes its bookmarks with it.
      bookmarksOf(store);
      // A deleted session's links go with it: none is left pointing at nothing in Settings.
      store.events.on('event', (event) => {
        if (event.type !== 'session_deleted') return;
        runtime()
          .shareLinks.revokeSession(userId, event.data.id)
          .catch((error: unknown) => console.error('[share] could not remove the links of a deleted session:', error));
      });
      // The index follows the store's change feed (users/<id>/changes/) and reads on from its
      // saved position in it, so a write made while it was closed (`cli import` with the server
      // stopped) or never written (a kill) is caught up. Opening a valid index takes
      // milliseconds; one that must be rebuilt is filled in the background.
      const search = SearchIndex.open({ path: join(dataDir, 'users', userId, 'search.sqlite'), source: storeSource(store) }).then((index) => {
        runtime().openedIndexes.push(index);
        return index;
      });
      searchIndexes.set(userId, search);
      await search.catch((error: unknown) => console.error('[search] the index could not be opened:', error));
      await openUserUsage(dataDir, userId, store);
      // A chat turn the last process did not finish ends failed, with what it had written committed.
      await failInterruptedTurns(store);
      openedStores.push(store);
      return store;
    })();
    // A failed open is not cached: the next request tries again.
    opening.catch(() => userStores.delete(userId));
    userStores.set(userId, opening);
  }
  return opening;
}

/**
 * The full-text index of one user, opened with that user's store and following it through its
 * events, so the store never waits for it. Callers pass ctx.user.id only: the index holds that
 * user's text and nobody else's.
 */
export async function getUserSearch(userId: string): Promise<SearchIndex> {
  await getUserStore(userId);
  const search = runtime().searchIndexes.get(userId);
  if (!search) throw new Error(`no search index for ${userId}`);
  return search;
}

/** How long a search waits for the index to read sessions just written whole (an import). */
const SEARCH_SETTLE_MS = 2_000;

/** getUserSearch for a query: what was imported before it is in what it reads. */
export async function getSettledSearch(userId: string): Promise<SearchIndex> {
  const index = await getUserSearch(userId);
  await index.settled(SEARCH_SETTLE_MS);
  return index;
}

/** The user's redaction setting (on unless they turned it off in Settings) as the store's hook. */
function redactorFor(userId: string): Redactor | null {
  const user = runtime().auth.users.get(userId);
  // lib/redact's rules; a large text is redacted in the background thread, not on this one (issue 27 item 1).
  return !user || runtime().auth.users.prefsOf(userId).redactSecrets ? backgroundRedactor : null;
}

/** The user's choice (Settings, off unless turned on): may an agent session's prompts go to the title model? */
function titlesAgentSessions(userId: string): boolean {
  const user = runtime().auth.users.get(userId);
  return user ? runtime().auth.users.prefsOf(userId).titleAgentSessions : false;
}

/** After the user changed their settings: the open store follows at once. */
export async function applyUserPrefs(userId: string): Promise<void> {
  const opening = runtime().userStores.get(userId);
  if (!opening) return;
  const store = await opening;
  store.setRedactor(redactorFor(userId));
  store.setTitleAgentSessions(titlesAgentSessions(userId));
}

/** Flush every registry that finished opening, synchronously: safe inside a signal handler. */
export function flushAllSync(): void {
  const { auth, openedStores } = runtime();
  closeAllUsageSync();
  for (const index of runtime().openedIndexes.splice(0)) {
    try {
      index.closeSync();
    } catch (error) {
      console.error('[shutdown] search index close failed:', error);
    }
  }
  for (const store of openedStores) {
    try {
      store.flushSync();
    } catch (error) {
      console.error('[shutdown] flush failed:', error);
    }
  }
  auth.flushSync();
}

/** Whether the user's store is open (or opening) in this process. */
export function isUserStoreOpen(userId: string): boolean {
  return runtime().userStores.has(userId);
}

/** The user's store made durable and idle: registry written, titles and repacks finished (a move's freeze). */
export async function settleUserStore(userId: string): Promise<void> {
  const opening = runtime().userStores.get(userId);
  const store = opening ? await opening.catch(() => null) : null;
  if (!store) return;
  await store.idle();
  await store.flush();
}

/** Close and forget the user's store and search index (moved away, or about to be replaced by a copy). */
export async function closeUserStore(userId: string): Promise<void> {
  const current = runtime();
  const opening = current.userStores.get(userId);
  const searching = current.searchIndexes.get(userId);
  current.userStores.delete(userId);
  current.searchIndexes.delete(userId);
  await closeUserUsage(userId);
  const store = opening ? await opening.catch(() => null) : null;
  const index = searching ? await searching.catch(() => null) : null;
  if (index) {
    current.openedIndexes.splice(current.openedIndexes.indexOf(index) >>> 0, current.openedIndexes.includes(index) ? 1 : 0);
    await index.close();
  }
  if (store) {
    current.openedStores.splice(current.openedStores.indexOf(store) >>> 0, current.openedStores.includes(store) ? 1 : 0);
    await store.close();
  }
}
