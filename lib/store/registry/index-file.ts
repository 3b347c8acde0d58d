import { closeSync, constants, ftruncateSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { atomicWriteFileSync, FILE_MODE } from '../../fs/atomic-write.js';
import { chunkOf, type Change, type Registry } from './registry.js';
import { installSnapshot, snapshotTmpPath, writeSnapshot } from './compaction.js';
import { CompactionWorker } from './compaction-worker.js';
import { ensureLogDir, LOG_DIR, listSegments, recordLine, segmentName } from './registry-log.js';

const INDEX_FILE = 'index.json';
/**
 * Ids whose registry entry may be newer in their own files than in index.json and the log.
 * Appended before a session is touched, cleared once a log record (or index.json) covers the
 * change: after a crash it names exactly the sessions to reconcile, without opening the others.
 */
const JOURNAL_FILE = '.index-journal';

export const DEBOUNCE_MS = 5_000;
/** The log is compacted into index.json once its active segment grows past this… */
const COMPACT_BYTES = 4 * 1024 * 1024;
/** …or on this timer when anything was logged since the last snapshot. */
const COMPACT_INTERVAL_MS = 60_000;
/** A registry this large compacts in a worker (a few ms of slices below it). */
const WORKER_MIN_ENTRIES = 10_000;

const SEGMENT_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

export interface RegistryWriterOptions {
  debounceMs?: number;
  compactBytes?: number;
  compactIntervalMs?: number;
  /** false: compact on the main thread in time slices (the fallback when a worker fails) */
  compactInWorker?: boolean;
  /** below this many entries a compaction runs in slices here: one thread per small store is not worth it */
  workerMinEntries?: number;
}

/** index.json as an object, or null when missing, unparsable or not an object (→ rebuild). */
export function readIndexFile(sessionsDir: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(join(sessionsDir, INDEX_FILE), 'utf8');
  } catch {
    return null;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    return value as Record<string, unknown>;
  } catch {
    return null;
  }
}

export function readJournal(sessionsDir: string): string[] {
  try {
    return [...new Set(readFileSync(join(sessionsDir, JOURNAL_FILE), 'utf8').split('\n').filter(Boolean))];
  } catch {
    return [];
  }
}

/**
 * Keeps the registry durable in O(change) (docs/decisions.md, "Registry: log + snapshot"):
 * create/update/delete append the changed entries to the log and fsync it before they resolve
 * (concurrent requests share one write); the append path does the same within the debounce
 * window. index.json is the snapshot: compacted from memory in time slices when the log passes
 * a bound or on a timer, and synchronously at a clean stop, after which the log is empty.
 */
export class RegistryWriter {
  private readonly indexPath: string;
  private readonly journalPath: string;
  private readonly debounceMs: number;
  private readonly compactBytes: number;
  /** id → generation of its latest change, so a write clears only what it covered */
  private readonly journaled = new Map<string, number>();
  /** the journal, kept open: one small write per first touch, no open/close/rename per request */
  private journalFd: number | null = null;
  private journalLines = 0;
  /** ids between their files' change and the registry's (across an await): never settled then */
  private readonly held = new Map<string, number>();
  private generation = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly compactTimer: NodeJS.Timeout;
  private writing: Promise<void> | null = null;
  private again = false;
  private lastWrite = 0;
  private closed = false;
  /** the segment new records go to, its open handle and size */
  private segment = 1;
  private handle: Promise<FileHandle> | null = null;
  /** the handle a write is using right now (it closes it itself if rotated meanwhile) */
  private inUse: Promise<FileHandle> | null = null;
  private segmentBytes = 0;
  /** something was logged (or replayed) that index.json does not have yet */
  private unsnapshotted = false;
  private compacting: Promise<void> | null = null;
  /** bumped by every synchronous full write: an older compaction must not rename over it */
  private epoch = 0;
  /** the thread that writes snapshots from its mirror of the entries; created at the first compaction */
  private worker: CompactionWorker | null = null;
  private readonly compactInWorker: boolean;
  private readonly workerMinEntries: number;
  writes = 0;
  compactions = 0;

  constructor(
    private readonly sessionsDir: string,
    private readonly registry: Registry,
    options: RegistryWriterOptions = {},
  ) {
    this.indexPath = join(sessionsDir, INDEX_FILE);
    this.journalPath = join(sessionsDir, JOURNAL_FILE);
    this.debounceMs = options.debounceMs ?? DEBOUNCE_MS;
    this.compactBytes = options.compactBytes ?? COMPACT_BYTES;
    this.compactInWorker = options.compactInWorker ?? true;
    this.workerMinEntries = options.workerMinEntries ?? WORKER_MIN_ENTRIES;
    this.compactTimer = setInterval(() => {
      if (this.unsnapshotted) this.compactInBackground();
    }, options.compactIntervalMs ?? COMPACT_INTERVAL_MS);
    this.compactTimer.unref?.();
  }

  /** Start-up: new records go after every segment on disk; replayed ones still need a snapshot. */
  begin(existingSegments: readonly number[], journalLines: number): void {
    ensureLogDir(this.sessionsDir);
    this.journalLines = journalLines; // the previous run's, reconciled by start-up
    this.segment = Math.max(0, ...existingSegments) + 1;
    this.unsnapshotted = existingSegments.length > 0;
  }

  /** Record that `id` is about to change on disk before the registry's files know it. */
  journal(id: string): void {
    if (!this.journaled.has(id)) {
      this.journalFd ??= openSync(this.journalPath, 'a', 0o600);
      writeSync(this.journalFd, `${id}\n`);
      this.journalLines++;
    }
    this.journaled.set(id, ++this.generation);
  }

  /**
   * journal(id) for a change whose files are written asynchronously: the id stays journaled
   * until `release` (called once the registry has the change), whatever writes settle meanwhile.
   */
  hold(id: string): () => void {
    this.journal(id);
    this.held.set(id, (this.held.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = (this.held.get(id) ?? 1) - 1;
      if (count > 0) this.held.set(id, count);
      else this.held.delete(id);
      this.journaled.set(id, ++this.generation);
    };
  }

  /** Append path: the change is in memory; log it within the debounce window. */
  markDirty(): void {
    if (this.closed || this.timer) return;
    const wait = Math.max(0, this.lastWrite + this.debounceMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.writeNow().catch(() => this.markDirty());
    }, wait);
    this.timer.unref?.();
  }

  /** Resolves once a log write that started after this call is on disk. */
  writeNow(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.writing) {
      // The running loop writes once more before it settles, covering this caller's change.
      this.again = true;
      return this.writing;
    }
    this.writing = this.runWrites().finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  private async runWrites(): Promise<void> {
    do {
      this.again = false;
      const covered = this.generation;
      const changes = this.registry.takeChanged();
      if (changes.length > 0) {
        const text = recordsText(changes);
        this.worker?.records(text); // in the order taken: the mirror sees what the log will
        try {
          await this.append(text);
        } catch (error) {
          // Not durable: the changes go back to the next write; the journal still names them.
          for (const [id] of changes) this.registry.markChanged(id);
          throw error;
        }
        this.writes++;
      }
      this.lastWrite = Date.now();
      this.settleJournal(covered);
    } while (this.again);
    if (this.segmentBytes > this.compactBytes) this.compactInBackground();
  }

  /** One synchronous-data write to the active segment. */
  private async append(text: string): Promise<void> {
    // O_DSYNC: the write returns once the record is on disk, one thread-pool trip instead of two.
    this.handle ??= open(join(this.sessionsDir, segmentName(this.segment)), SEGMENT_FLAGS, FILE_MODE);
    const handlePromise = this.handle;
    this.inUse = handlePromise;
    try {
      const handle = await handlePromise;
      await handle.write(text);
      if (this.handle === handlePromise) this.segmentBytes += Buffer.byteLength(text);
      else await handle.close().catch(() => undefined); // rotated meanwhile; its records are in the snapshot
      this.unsnapshotted = true;
    } catch (error) {
      if (this.handle === handlePromise) this.handle = null; // reopen on the next write
      throw error;
    } finally {
      this.inUse = null;
    }
  }

  /** New records go to a fresh segment; the old one is closed once no write uses it. Returns the last covered segment. */
  private rotate(): number {
    const covered = this.segment;
    this.segment++;
    this.segmentBytes = 0;
    const old = this.handle;
    this.handle = null;
    if (old && old !== this.inUse) void old.then((handle) => handle.close()).catch(() => undefined);
    return covered;
  }

  /**
   * Snapshot memory into index.json without blocking the loop, then drop the segments it covers.
   * `inSlices`: on this thread even for a large registry (start-up after a rebuild, before the
   * store serves: feeding a worker's mirror first would take twice as long).
   */
  compact(options: { inSlices?: boolean } = {}): Promise<void> {
    this.compacting ??= this.runCompaction(options.inSlices === true).finally(() => {
      this.compacting = null;
    });
    return this.compacting;
  }

  private compactInBackground(): void {
    if (this.closed || this.compacting) return;
    // A failure leaves the log in place; the timer tries again.
    void this.compact().catch(() => undefined);
  }

  private async runCompaction(inSlices: boolean): Promise<void> {
    const epoch = this.epoch;
    const generation = this.generation;
    const covered = this.rotate();
    this.unsnapshotted = false;
    try {
      const previous = join(this.sessionsDir, LOG_DIR, 'previous-index.json');
      const written = await this.writeSnapshotFile(previous, () => epoch === this.epoch, inSlices);
      if (!written) return;
      this.writes++;
      this.compactions++;
      for (const segment of listSegments(this.sessionsDir)) {
        if (segment <= covered) await unlink(join(this.sessionsDir, segmentName(segment))).catch(() => undefined);
      }
      if (epoch === this.epoch) this.settleJournal(generation);
    } catch (error) {
      this.unsnapshotted = true;
      throw error;
    }
  }

  /** In the worker when it can (the main thread only posts a message and renames), else in slices here. */
  private async writeSnapshotFile(previous: string, stillWanted: () => boolean, inSlices: boolean): Promise<boolean> {
    if (!inSlices && this.compactInWorker && (this.worker || this.registry.size >= this.workerMinEntries)) {
      this.worker ??= new CompactionWorker();
      if (this.worker.usable) {
        // Changes not logged yet are in memory: the mirror gets them now (and the log later, again).
        const pending = this.registry.takeChanged();
        for (const [id] of pending) this.registry.markChanged(id);
        this.worker.records(recordsText(pending));
        const tmp = snapshotTmpPath(this.indexPath);
        try {
          await this.worker.write(tmp, FILE_MODE, () => this.registry.snapshot());
        } catch (error) {
          if (this.worker.usable) throw error; // a write that failed (disk): the timer tries again
          // The thread is gone: compact here from now on.
        }
        if (this.worker.usable) return installSnapshot(tmp, this.indexPath, previous, stillWanted);
      }
    }
    return writeSnapshot(this.indexPath, previous, this.registry.snapshot(), chunkOf, stillWanted);
  }

  /** Shutdown and signal handlers: everything in memory to index.json now, the log emptied. */
  flushSync(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.epoch++;
    const generation = this.generation;
    const covered = this.rotate();
    this.worker?.records(recordsText(this.registry.takeChanged())); // index.json carries them
    atomicWriteFileSync(this.indexPath, this.registry.serialize());
    this.writes++;
    this.unsnapshotted = false;
    for (const segment of listSegments(this.sessionsDir)) {
      if (segment <= covered) rmSync(join(this.sessionsDir, segmentName(segment)), { force: true });
    }
    this.settleJournal(generation);
  }

  /** Clean stop: background writes finish, then the full write; nothing runs afterwards. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.compactTimer);
    await this.compacting?.catch(() => undefined);
    await this.writing?.catch(() => undefined);
    this.flushSync();
    const handle = this.handle;
    this.handle = null;
    await handle?.then((open) => open.close()).catch(() => undefined);
    await this.worker?.terminate();
  }

  /** A store whose open failed: stop the timer, write nothing. */
  async abandon(): Promise<void> {
    this.closed = true;
    clearInterval(this.compactTimer);
    await this.compacting?.catch(() => undefined);
    await this.writing?.catch(() => undefined);
    await this.handle?.then((open) => open.close()).catch(() => undefined);
    await this.worker?.terminate();
    if (this.journalFd !== null) closeSync(this.journalFd);
    this.journalFd = null;
  }

  /**
   * Forget journaled ids the write covered; keep any id dirtied while it ran. The file is
   * removed when nothing is left; otherwise covered lines stay until then (a stale line only
   * makes a start-up reconcile one session whose registry entry is already right).
   */
  private settleJournal(covered: number): void {
    for (const [id, generation] of this.journaled) if (generation <= covered && !this.held.has(id)) this.journaled.delete(id);
    if (this.journalLines === 0) return;
    if (this.journaled.size === 0) {
      this.closeJournal();
      this.journalLines = 0;
    } else if (this.journalLines > 4 * this.journaled.size + 1_000) {
      // Bounded under a load that never lets it empty: rewrite the live ids only.
      const fd = this.journalFd ?? openSync(this.journalPath, 'a', 0o600);
      this.journalFd = fd;
      ftruncateSync(fd, 0);
      writeSync(fd, [...this.journaled.keys()].map((id) => `${id}\n`).join(''));
      this.journalLines = this.journaled.size;
    }
  }

  /** An empty journal is removed: nothing is left to reconcile. */
  private closeJournal(): void {
    if (this.journalFd !== null) closeSync(this.journalFd);
    this.journalFd = null;
    if (this.journaled.size === 0) rmSync(this.journalPath, { force: true });
  }
}

/** The log's lines for some changes; a recreated id is deleted first (it moved to the map's end). */
function recordsText(changes: readonly Change[]): string {
  let text = '';
  for (const [id, entry, recreated] of changes) {
    if (entry && recreated) text += recordLine({ op: 'delete', id });
    text += recordLine(entry ? { op: 'set', entry } : { op: 'delete', id });
  }
  return text;
}
