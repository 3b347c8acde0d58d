import { acquireDataDirLock, DataDirLockedError } from '@/lib/process/data-dir-lock';
import { oidcConfigProblems } from '@/server/auth/oidc-provider';
import { auditSingleSignOn } from '@/server/audit/audit-single-sign-on';
import { flushAllSync, getAuthStore, getClusterNode, getDataDir, prepareRuntime } from '@/server/runtime';
import { startRetentionSchedule } from '@/server/background/retention-schedule';

const STARTED = Symbol.for('entity-memory.started');
const started = globalThis as typeof globalThis & { [STARTED]?: Promise<void> };

/**
 * Server start-up, before the first request: take the data directory, create the admin or print
 * the setup code, write the CLI's token, and make SIGTERM / SIGINT flush every registry before
 * the process exits. Called by server/http/serve.ts and again by instrumentation.ts (Next's own
 * copy of this module), so the work is done once per process.
 */
export function startServer(): Promise<void> {
  started[STARTED] ??= startOnce();
  return started[STARTED];
}

async function startOnce(): Promise<void> {
  await prepareRuntime();
  const dataDir = getDataDir();
  // The CLI reaches this process at the lock's URL with this instance's own token: in cluster
  // mode that is the instance itself, never the shared HAProxy address in NEXTAUTH_URL.
  const url = (process.env.OPENPROGRAM_CLUSTER_DB ? process.env.OPENPROGRAM_INSTANCE_URL : undefined) ?? process.env.NEXTAUTH_URL ?? `http://localhost:${process.env.PORT ?? '3000'}`;
  let release: () => void;
  try {
    release = acquireDataDirLock(dataDir, url);
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      console.error(`\n${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    // Always exits: a flush that throws (a full disk) must not leave a process that ignores every
    // later signal. What was not written is rebuilt at the next start (the registry log, the index).
    let flushed = true;
    try {
      flushAllSync();
    } catch (error) {
      flushed = false;
      console.error(`[entity-memory] ${signal}: flushing failed (${(error as Error).message}); the next start rebuilds what was not written`);
    }
    try {
      release();
    } catch (error) {
      console.error(`[entity-memory] ${signal}: the data-directory lock was not released (${(error as Error).message})`);
    }
    if (flushed) console.log(`[entity-memory] ${signal}: registries flushed, exiting`);
    const code = flushed ? 0 : 1;
    const cluster = getClusterNode();
    if (!cluster) process.exit(code);
    // Marked unhealthy so no new user is placed here; never waits long for Postgres.
    void Promise.race([cluster.stop(), new Promise((resolve) => setTimeout(resolve, 1_000))]).finally(() => process.exit(code));
  };
  // With NEXT_MANUAL_SIG_HANDLE=true Next installs no handlers of its own, so these run first and exit.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('exit', () => {
    if (!stopping) {
      flushAllSync();
      release();
    }
  });

  const auth = getAuthStore();
  const lines = await auth.bootstrap({
    adminEmail: process.env.OPENPROGRAM_ADMIN_EMAIL,
    adminPassword: process.env.OPENPROGRAM_ADMIN_PASSWORD,
  });
  for (const line of [...lines, ...oidcConfigProblems()]) console.log(`[entity-memory] ${line}`);
  auditSingleSignOn();
  auth.writeCliToken();
  console.log(`[entity-memory] data directory ${dataDir}`);
  startRetentionSchedule();
}
