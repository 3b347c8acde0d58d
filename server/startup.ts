import { acquireDataDirLock, DataDirLockedError } from '@/lib/process/data-dir-lock';
import { flushAllSync, getAuthStore, getDataDir } from '@/server/runtime';

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
  const dataDir = getDataDir();
  const url = process.env.NEXTAUTH_URL ?? `http://localhost:${process.env.PORT ?? '3000'}`;
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
    process.exit(flushed ? 0 : 1);
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
  for (const line of lines) console.log(`[entity-memory] ${line}`);
  auth.writeCliToken();
  console.log(`[entity-memory] data directory ${dataDir}`);
}
