import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile, atomicWriteFileSync } from '../fs/atomic-write.js';
import type { Registry } from './registry.js';

export const INDEX_FILE = 'index.json';
/**
 * Ids whose registry entry may be newer in their own files than in index.json. Appended before
 * a session is touched, cleared after the registry is written: after a crash it names exactly
 * the sessions to reconcile, without opening the other 100,000.
 */
export const JOURNAL_FILE = '.index-journal';

export const DEBOUNCE_MS = 5_000;

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
 * Writes index.json: at once for create/update/delete, debounced to one write per 5 s on the
 * append path, synchronously on shutdown. Writes never overlap; requests during a write
 * coalesce into one more.
 */
export class RegistryWriter {
  private readonly indexPath: string;
  private readonly journalPath: string;
  /** id → generation of its latest change, so a write clears only what it covered */
  private readonly journaled = new Map<string, number>();
  private generation = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private again = false;
  private lastWrite = 0;
  private closed = false;
  writes = 0;

  constructor(
    private readonly sessionsDir: string,
    private readonly registry: Registry,
    private readonly debounceMs = DEBOUNCE_MS,
  ) {
    this.indexPath = join(sessionsDir, INDEX_FILE);
    this.journalPath = join(sessionsDir, JOURNAL_FILE);
  }

  /** Record that `id` is about to change on disk before index.json knows it. */
  journal(id: string): void {
    if (!this.journaled.has(id)) appendFileSync(this.journalPath, `${id}\n`, { mode: 0o600 });
    this.journaled.set(id, ++this.generation);
  }

  /** Append path: the change is in memory; write within the debounce window. */
  markDirty(): void {
    if (this.closed || this.timer) return;
    const wait = Math.max(0, this.lastWrite + this.debounceMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.writeNow().catch(() => this.markDirty());
    }, wait);
    this.timer.unref?.();
  }

  /** Resolves once a write that started after this call has finished. */
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
      await atomicWriteFile(this.indexPath, this.registry.serialize());
      this.writes++;
      this.lastWrite = Date.now();
      this.settleJournal(covered);
    } while (this.again);
  }

  /** Shutdown: everything in memory to disk now, without yielding to the event loop. */
  flushSync(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const covered = this.generation;
    atomicWriteFileSync(this.indexPath, this.registry.serialize());
    this.writes++;
    this.settleJournal(covered);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Drop journal lines the write covered; keep any id dirtied while it ran. */
  private settleJournal(covered: number): void {
    for (const [id, generation] of this.journaled) if (generation <= covered) this.journaled.delete(id);
    if (this.journaled.size === 0) rmSync(this.journalPath, { force: true });
    else atomicWriteFileSync(this.journalPath, [...this.journaled.keys()].map((id) => `${id}\n`).join(''), { durable: false });
  }
}
