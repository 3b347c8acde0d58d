#!/usr/bin/env node
// Before `npm start` (and start:bun, start:deno) and before the end-to-end tests: the app serves
// the production build, so build first when there is none or when a source file is newer than it.
// A fresh build is left alone (CI builds once). A failed build shows the build's own output and
// exits with its status: the self-hoster needs Next's error, not a stack trace of this script.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['app', 'pages', 'components', 'lib', 'server', 'trpc', 'proxy.ts', 'instrumentation.ts', 'next.config.ts', 'postcss.config.mjs', 'package.json', 'package-lock.json', 'tsconfig.json'];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** 'missing' (no .next/BUILD_ID), 'stale' (a source is newer than it) or 'fresh'. */
export function buildState(dir = root) {
  const buildId = join(dir, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return 'missing';
  const builtAt = statSync(buildId).mtimeMs;
  const changedAt = Math.max(...SOURCES.map((source) => newestMtime(join(dir, source))));
  return changedAt > builtAt ? 'stale' : 'fresh';
}

/**
 * Two builds at once into one .next leave a broken build that looks fresh (two `npm start`s after
 * a pull), so the check and the build hold a lock; another waits for it, then finds the build fresh.
 * Returns a release function, or the pid of the live process that holds the lock.
 */
function takeBuildLock(dir) {
  const path = join(dir, 'node_modules', '.cache', 'entity-memory-build.lock');
  mkdirSync(join(dir, 'node_modules', '.cache'), { recursive: true });
  try {
    const fd = openSync(path, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return () => unlinkSync(path);
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  const holder = Number(readFileSync(path, 'utf8'));
  if (holder > 0 && isAlive(holder)) return holder;
  unlinkSync(path); // the build that held it was killed
  return takeBuildLock(dir);
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Builds when needed, saying why; returns the build's exit status (0 when none was needed). */
export function buildIfStale(dir = root) {
  let waiting = false;
  // Next writes BUILD_ID before it has finished, so even a fresh-looking build is checked under the lock.
  for (let lock = takeBuildLock(dir); ; lock = takeBuildLock(dir)) {
    if (typeof lock === 'function') {
      try {
        // After a wait: fresh now, or the build we waited for failed and this one shows why.
        return build(dir, buildState(dir));
      } finally {
        lock();
      }
    }
    if (!waiting) console.log(`Another build is running (pid ${lock}): waiting for it…`);
    waiting = true;
    sleepSync(1000);
  }
}

function build(dir, state) {
  if (state === 'fresh') {
    console.log('The build is up to date.');
    return 0;
  }
  console.log(state === 'missing' ? 'No build found: building the app (about a minute)…' : 'Sources changed since the last build: rebuilding…');
  // NODE_ENV=development (from a shell profile) would make next build produce a broken build.
  const env = { ...process.env, NODE_ENV: 'production' };
  const npm = process.env.npm_execpath;
  // Under npm, run its own CLI with this node: no reliance on `npm` being on PATH.
  const [command, args] = npm && npm.endsWith('.js') ? [process.execPath, [npm, 'run', 'build']] : ['npm', ['run', 'build']];
  const result = spawnSync(command, args, { cwd: dir, stdio: 'inherit', env });
  if (result.error) {
    console.error(`Could not run the build: ${result.error.message}`);
    return 1;
  }
  if (result.status !== 0) {
    console.error(`The build failed (${result.signal ?? `exit ${result.status}`}): its output is above. Nothing was started.`);
    return result.status || 1;
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = buildIfStale();
