import { statSync, watch, type FSWatcher } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { loadPositions, planRead, savePositions, type CollectPositions } from './collect-positions.js';
import { FileRefused, RetryLater, sendFile, type CollectServer } from './send-file.js';
import { sendableLength, wholeLinesEnd } from './whole-lines.js';

/**
 * `entity-memory collect` (DESIGN §17): this machine's Claude Code and Codex transcripts (and any
 * path given) sent to the server's import as they grow. A file's new whole lines make it go up
 * to its last whole line; the import adds only the messages the server lacks (their ids come
 * from the transcript), so a resend after a crash or a retry duplicates nothing. The position
 * per file is saved only after the server acknowledged, so nothing is lost either.
 */

export interface CollectorOptions {
  server: CollectServer;
  /** folders walked for *.jsonl, or single files */
  roots: string[];
  /** collect.json */
  statePath: string;
  /** send what is there and stop (no watching) */
  once?: boolean;
  /** a file's changes are looked at this long after the last one (fs.watch fires many times per write) */
  debounceMs?: number;
  /** every folder walked again this often: fs.watch misses files in folders made after it started */
  rescanMs?: number;
  /** a file unchanged this long is whole: a Claude Code answer at its end is sent */
  settleMs?: number;
  /** the first wait after a failed send, doubled each time up to maxRetryMs */
  firstRetryMs?: number;
  maxRetryMs?: number;
  log(line: string): void;
  signal?: AbortSignal;
}

export interface CollectSummary {
  /** sends the server acknowledged */
  sends: number;
  added: number;
  updated: number;
}

/** `~/.claude/projects` and `${CODEX_HOME:-~/.codex}/sessions`. */
export function defaultRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  return [join(home, '.claude', 'projects'), join(env['CODEX_HOME'] || join(home, '.codex'), 'sessions')];
}

export function defaultStatePath(home: string): string {
  return join(home, '.entity-memory', 'collect.json');
}

/** The *.jsonl files under a root (a file root is itself), each with the name the import is given. */
async function filesOf(root: string): Promise<{ path: string; name: string }[]> {
  const info = await stat(root).catch(() => null);
  if (!info) return [];
  if (info.isFile()) return [{ path: root, name: basename(root) }];
  const found: { path: string; name: string }[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      // the root's own name first (`projects/…`, `sessions/…`), as `entity-memory import` names them
      else if (entry.isFile() && entry.name.endsWith('.jsonl')) found.push({ path: full, name: relative(dirname(root), full) });
    }
  };
  await walk(root);
  return found;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal?.aborted) return done();
    const timer = setTimeout(finish, ms);
    function finish(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      done();
    }
    signal?.addEventListener('abort', finish, { once: true });
  });
}

export async function runCollector(options: CollectorOptions): Promise<CollectSummary> {
  const { log, signal } = options;
  const debounceMs = options.debounceMs ?? 200;
  const rescanMs = options.rescanMs ?? 3_000;
  const settleMs = options.settleMs ?? 1_000;
  const firstRetryMs = options.firstRetryMs ?? 500;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  const roots = options.roots.map((root) => resolve(root));
  const positions: CollectPositions = await loadPositions(options.statePath, log);
  const summary: CollectSummary = { sends: 0, added: 0, updated: 0 };
  const names = new Map<string, string>();
  const queue = new Set<string>();
  const timers = new Map<string, NodeJS.Timeout>();
  const watchers = new Map<string, FSWatcher>();
  let draining: Promise<void> | null = null;
  let fatal: Error | null = null;

  /** Send what of one file may go now; true when part of it waits (an answer still being written). */
  const sendOne = async (path: string): Promise<boolean> => {
    const handle = await open(path, 'r').catch(() => null);
    if (!handle) return false; // gone since it was seen
    try {
      const info = await handle.stat();
      const saved = positions.files[path];
      const plan = planRead(saved, { ino: info.ino, size: info.size });
      if (plan.kind === 'unchanged') return false;
      const tail = Buffer.alloc(info.size - plan.from);
      await handle.read(tail, 0, tail.length, plan.from);
      const settled = options.once === true || Date.now() - info.mtimeMs >= settleMs;
      const end = plan.from + sendableLength(tail, settled);
      // an answer held back (not a line still being written: its newline wakes the watcher)
      const waiting = end < plan.from + wholeLinesEnd(tail);
      if (end === 0 || (!plan.restarted && end <= (saved?.offset ?? 0))) return waiting;
      if (plan.restarted) log(`collect: ${path} shrank or was replaced: sent again from its start`);
      try {
        const report = await sendFile(options.server, names.get(path) ?? basename(path), handle, end);
        summary.added += report.added;
        summary.updated += report.updated;
        for (const skipped of report.skipped ?? []) log(`collect: ${skipped.file}${skipped.line > 0 ? `:${skipped.line}` : ''}: ${skipped.reason}`);
        if (report.added + report.updated > 0) log(`collect: ${names.get(path)}: ${report.added} added, ${report.updated} updated`);
      } catch (error) {
        if (!(error instanceof FileRefused)) throw error;
        // Sending it again as it is would be refused again: its position moves on, it goes again when it grows.
        log(`collect: ${path} refused by the server: ${error.message}`);
      }
      summary.sends++;
      positions.files[path] = { ino: info.ino, offset: end };
      await savePositions(options.statePath, positions);
      return waiting;
    } finally {
      await handle.close();
    }
  };

  /** One file, tried again with backoff while the server cannot take it. */
  const collectFile = async (path: string): Promise<void> => {
    for (let attempt = 0; !signal?.aborted; attempt++) {
      try {
        if ((await sendOne(path)) && options.once !== true) later(path, settleMs);
        return;
      } catch (error) {
        if (!(error instanceof RetryLater)) throw error;
        const wait = Math.min(maxRetryMs, firstRetryMs * 2 ** attempt);
        log(`collect: ${error.message}; trying again in ${(wait / 1000).toFixed(1)} s`);
        await sleep(wait, signal);
      }
    }
  };

  const drain = (): Promise<void> => {
    if (draining) return draining;
    // Set before the loop starts: with an empty queue the loop ends before `draining` would be assigned.
    let finished!: () => void;
    const run = new Promise<void>((done) => (finished = done));
    draining = run;
    void (async () => {
      try {
        while (queue.size > 0 && !signal?.aborted && !fatal) {
          const path = queue.values().next().value as string;
          queue.delete(path);
          await collectFile(path);
        }
      } catch (error) {
        fatal = error as Error;
        stop?.();
      } finally {
        draining = null;
        finished();
      }
    })();
    return run;
  };

  const enqueue = (path: string): void => {
    queue.add(path);
    void drain();
  };

  /** Look at a file once it has been quiet for `ms`. */
  const later = (path: string, ms: number): void => {
    clearTimeout(timers.get(path));
    timers.set(path, setTimeout(() => {
      timers.delete(path);
      enqueue(path);
    }, ms));
  };

  const watchRoot = (root: string): void => {
    if (watchers.has(root)) return;
    try {
      if (!statSync(root).isDirectory()) return; // a file given as a path: the rescan looks at it
      const watcher = watch(root, { recursive: true }, (_event, file) => {
        if (typeof file !== 'string' || !file.endsWith('.jsonl')) return;
        const path = join(root, file);
        names.set(path, relative(dirname(root), path));
        later(path, debounceMs);
      });
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(root); // the next rescan watches it again, if it is still there
      });
      watchers.set(root, watcher);
    } catch {
      // not there yet, or not a folder: the rescan finds its files
    }
  };

  let scanning = false;
  const scan = async (): Promise<void> => {
    if (scanning) return;
    scanning = true;
    try {
      await scanRoots();
    } finally {
      scanning = false;
    }
    await drain();
  };
  const scanRoots = async (): Promise<void> => {
    for (const root of roots) {
      if (options.once !== true) watchRoot(root);
      for (const file of await filesOf(root)) {
        names.set(file.path, file.name);
        const info = await stat(file.path).catch(() => null);
        if (info && planRead(positions.files[file.path], { ino: info.ino, size: info.size }).kind === 'read' && !timers.has(file.path)) queue.add(file.path);
      }
    }
  };

  let stop: (() => void) | null = null;
  await scan();
  if (fatal) throw fatal;
  if (options.once === true || signal?.aborted) return summary;

  await new Promise<void>((done) => {
    const rescan = setInterval(() => void scan(), rescanMs);
    stop = () => {
      clearInterval(rescan);
      for (const timer of timers.values()) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      done();
    };
    signal?.addEventListener('abort', () => stop?.(), { once: true });
  });
  await draining;
  if (fatal) throw fatal;
  return summary;
}
