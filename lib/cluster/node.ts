import { ApiTokenStore, AuthStore, UserStore } from '../auth/index.js';
import { ControlListener, type ControlMessage } from './control-channel.js';
import { createPool, migrate, type ClusterConfig, type Pool } from './db.js';
import { OwnershipReplica } from './ownership.js';
import { loadSharedSecret, loadSignupOpen, loadTokens, loadUser, loadUsers, PgSignInLimits, PgTokenBackend, PgUserBackend } from './pg-auth-backend.js';
import { ShardDirectory } from './shard-directory.js';
import { PgShareIndex } from './share-index.js';

/** One instance's part in a cluster: its pool, its replicas of the auth tables and of user_shard, the control channel. */
export interface ClusterNode {
  config: ClusterConfig;
  pool: Pool;
  directory: ShardDirectory;
  ownership: OwnershipReplica;
  auth: AuthStore;
  /** share link id → owner (`share_link`): `/s/<id>` is served by the owner's instance */
  shares: PgShareIndex;
  /** a user's owner changed (placed, moved, frozen); the server closes streams it no longer serves */
  onOwnerChange(listener: (userId: string) => void): () => void;
  /** marks the instance unhealthy (no new users placed on it) and closes its connections */
  stop(): Promise<void>;
}

export interface StartClusterNodeOptions {
  /** `<DATA>/auth`: still holds this instance's CLI token */
  authDir: string;
  /** NEXTAUTH_SECRET, if given: then every instance must be given the same */
  secret?: string;
}

/**
 * Connects, creates the tables if missing, registers the instance and loads the replicas, then
 * listens: after this resolves the auth store's sync reads (sign-in cookies, API tokens) answer
 * from memory, and each control message refreshes the one user it names. Writes go to Postgres
 * first (lib/auth's backends), then into the replica.
 */
export async function startClusterNode(config: ClusterConfig, options: StartClusterNodeOptions): Promise<ClusterNode> {
  const pool = createPool(config.databaseUrl);
  await migrate(pool);
  const directory = new ShardDirectory(pool);
  await directory.register({ id: config.instanceId, url: config.instanceUrl, weight: config.weight });
  const ownership = new OwnershipReplica(config.instanceId, directory);
  const [secret, usersState, tokens] = await Promise.all([loadSharedSecret(pool, options.secret), loadUsers(pool), loadTokens(pool)]);
  const users = new UserStore({ backend: new PgUserBackend(pool, (userId, owner) => ownership.remember(userId, owner)), state: usersState });
  const tokenStore = new ApiTokenStore({ backend: new PgTokenBackend(pool), tokens });
  const auth = new AuthStore(options.authDir, { secret, backend: { users, tokens: tokenStore }, limiter: new PgSignInLimits(pool) });
  const ownerListeners = new Set<(userId: string) => void>();

  // One refresh at a time per user, in arrival order: a slow older read never overwrites a newer one.
  const refreshing = new Map<string, Promise<void>>();
  const serially = (key: string, work: () => Promise<void>): void => {
    const next = (refreshing.get(key) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => console.error(`[cluster] refresh of ${key} failed:`, (error as Error).message));
    refreshing.set(key, next);
    void next.finally(() => {
      if (refreshing.get(key) === next) refreshing.delete(key);
    });
  };

  const onMessage = (message: ControlMessage): void => {
    const userId = message.userId;
    switch (message.kind) {
      case 'settings':
        serially('settings', async () => users.replaceSignupOpen(await loadSignupOpen(pool)));
        return;
      case 'disabled':
      case 'password': {
        if (!userId) return;
        const local = users.get(userId);
        // At once, before the reload: every sign-in older than the new session version ends now.
        if (local && message.sessionVersion !== undefined && local.sessionVersion < message.sessionVersion) {
          users.replaceFromBackend({ ...local, sessionVersion: message.sessionVersion, disabled: local.disabled || message.kind === 'disabled' }, userId, true);
        }
        serially(userId, async () => users.replaceFromBackend(await loadUser(pool, userId), userId, false));
        return;
      }
      case 'user':
        if (userId) serially(userId, async () => users.replaceFromBackend(await loadUser(pool, userId), userId, false));
        return;
      case 'tokens':
        if (userId) serially(`tokens:${userId}`, async () => tokenStore.replaceUserTokens(userId, await loadTokens(pool, userId)));
        return;
      case 'placed':
      case 'moved':
      case 'frozen':
        if (userId) {
          serially(`owner:${userId}`, async () => {
            await ownership.refresh(userId);
            for (const listener of ownerListeners) listener(userId);
          });
        }
        return;
    }
  };

  const listener = new ControlListener({
    databaseUrl: config.databaseUrl,
    onMessage,
    // Read whole once LISTEN is in place (at start, and back after a loss): whatever was
    // announced before or meanwhile is in.
    onConnected: async () => {
      const [state, allTokens] = await Promise.all([loadUsers(pool), loadTokens(pool), ownership.reload()]);
      users.replaceAll(state);
      tokenStore.replaceAll(allTokens);
    },
  });
  await listener.start();

  return {
    config,
    pool,
    shares: new PgShareIndex(pool),
    directory,
    ownership,
    auth,
    onOwnerChange(listenerFn) {
      ownerListeners.add(listenerFn);
      return () => ownerListeners.delete(listenerFn);
    },
    async stop() {
      await listener.stop();
      await directory.setHealthy(config.instanceId, false).catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}
