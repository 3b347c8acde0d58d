/**
 * The change feed (DESIGN §3): one ordered, durable record per write of the user's history, in
 * `users/<id>/changes/`, whichever way the write came in. The store appends to it from the one
 * place every write passes (its own events, see SessionStore.open), so no writer has to remember
 * a consumer; consumers (the search index) keep their own position and read on from it after a
 * crash or a restart, even when the writes were made by another process (`cli import` with the
 * server stopped).
 *
 * Files: `changes/<first seq, 16 digits>.jsonl`, one JSON record a line. A record names what to
 * read again, not the data itself: git stays the truth. Segments rotate past SEGMENT_BYTES and a
 * segment every consumer has passed is removed (release).
 */
import { closeSync, fdatasync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DIR_MODE, FILE_MODE } from '../../fs/atomic-write.js';
import type { AppendedMessage } from '../types.js';

export const CHANGES_DIR = 'changes';
const SEGMENT_BYTES = 1024 * 1024;
/** appends are made durable together this long after the first of them */
const SYNC_MS = 50;
const SEGMENT_PATTERN = /^(\d{16})\.jsonl$/;

/**
 * - `created`: a session appeared or was replaced whole (created, imported, moved in): read all of it
 * - `nodes`: nodes were appended to it
 * - `session`: its row changed (title, archive…): read the row again
 * - `deleted`: it is gone
 */
export type ChangeKind = 'created' | 'nodes' | 'session' | 'deleted';

export interface ChangeRecord {
  seq: number;
  sessionId: string;
  kind: ChangeKind;
  /** `nodes`: the ids appended */
  nodeIds?: string[];
}

/** In this process only: what a consumer may use instead of reading the session again. */
export interface ChangeNotice {
  record: ChangeRecord;
  /** `nodes` of one message: the message as it was appended */
  message?: AppendedMessage;
}

function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(16, '0')}.jsonl`;
}

function parseRecord(line: string): ChangeRecord | null {
  try {
    const value = JSON.parse(line) as Partial<ChangeRecord>;
    if (!Number.isSafeInteger(value.seq) || typeof value.sessionId !== 'string' || typeof value.kind !== 'string') return null;
    return value as ChangeRecord;
  } catch {
    return null;
  }
}

export class ChangeFeed {
  readonly dir: string;
  private segments: number[];
  private last = 0;
  private fd: number | null = null;
  private segmentBytes = 0;
  /** the active segment lacks a final newline (a torn last line): the next append starts one */
  private needsNewline = false;
  private syncTimer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<(notice: ChangeNotice) => void>();
  /** lines a failed write (a full disk) left in memory: written before the next, retried on the timer */
  private unwritten = '';
  private closed = false;
  /** each consumer's released position in this process */
  private readonly positions = new Map<string, number>();

  constructor(stateDir: string) {
    this.dir = join(stateDir, CHANGES_DIR);
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    this.segments = this.listSegments();
    const active = this.segments.at(-1);
    if (active !== undefined) {
      const text = readFileSync(join(this.dir, segmentName(active)), 'utf8');
      this.segmentBytes = Buffer.byteLength(text);
      this.needsNewline = text.length > 0 && !text.endsWith('\n');
      for (const line of text.split('\n')) {
        const record = line ? parseRecord(line) : null;
        if (record && record.seq > this.last) this.last = record.seq;
      }
      // An empty active segment (a crash right after rotating) still says where numbering was.
      this.last = Math.max(this.last, active - 1);
    }
  }

  /** The newest sequence number written (0: none yet). */
  get lastSeq(): number {
    return this.last;
  }

  /** The oldest sequence number still on disk (lastSeq + 1 when there is none). */
  get firstSeq(): number {
    return this.segments[0] ?? this.last + 1;
  }

  /**
   * Appends one record (written now, made durable within SYNC_MS) and tells this process's
   * consumers. Never throws for the disk: the write it describes is done, so a record that cannot
   * be written yet (a full disk) is kept and written before the next one; consumers in this
   * process are told at once either way.
   */
  append(sessionId: string, kind: ChangeKind, extra: { nodeIds?: string[]; message?: AppendedMessage } = {}): ChangeRecord {
    const record: ChangeRecord = { seq: this.last + 1, sessionId, kind, ...(extra.nodeIds ? { nodeIds: extra.nodeIds } : {}) };
    this.last = record.seq;
    if (!this.closed) {
      this.unwritten += `${JSON.stringify(record)}\n`;
      this.writeUnwritten(record.seq);
      this.scheduleSync();
    }
    const notice: ChangeNotice = extra.message ? { record, message: extra.message } : { record };
    for (const listener of this.listeners) listener(notice);
    return record;
  }

  /** Every record after `seq`, in order; null when some of them were removed (read everything again). */
  readAfter(seq: number): ChangeRecord[] | null {
    if (seq >= this.last) return [];
    if (this.firstSeq > seq + 1) return null;
    const records: ChangeRecord[] = [];
    for (const [i, first] of this.segments.entries()) {
      const next = this.segments[i + 1];
      if (next !== undefined && next <= seq + 1) continue;
      let text: string;
      try {
        text = readFileSync(join(this.dir, segmentName(first)), 'utf8');
      } catch {
        return null;
      }
      for (const line of text.split('\n')) {
        const record = line ? parseRecord(line) : null;
        if (record && record.seq > seq) records.push(record);
      }
    }
    // Kept in memory until the disk has room: theirs too.
    for (const line of this.unwritten.split('\n')) {
      const record = line ? parseRecord(line) : null;
      if (record && record.seq > seq && record.seq > (records.at(-1)?.seq ?? 0)) records.push(record);
    }
    return records;
  }

  /** In-process notices of every append; returns the unsubscribe. */
  subscribe(listener: (notice: ChangeNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The consumer has everything up to `seq`: the segments wholly before the slowest consumer's
   * position (the search index, the usage rollups) are removed. A consumer not yet heard from in
   * this process holds nothing back: it finds its position gone and rebuilds.
   */
  release(seq: number, consumer = 'search'): void {
    this.positions.set(consumer, seq);
    const upTo = Math.min(...this.positions.values());
    while (this.segments.length > 1 && this.segments[1]! <= upTo + 1) {
      const first = this.segments.shift()!;
      rmSync(join(this.dir, segmentName(first)), { force: true });
    }
  }

  /** Durable now (close, signal handlers). */
  syncNow(): void {
    if (this.syncTimer) {
      clearTimeout(this.syncTimer);
      this.syncTimer = null;
    }
    this.writeUnwritten(this.last + 1);
    if (this.fd !== null) {
      try {
        fdatasyncSync(this.fd);
      } catch {
        // a failed sync is retried by the next append's timer
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.syncNow();
    this.closed = true;
    this.listeners.clear();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** What is kept in memory, to the active segment (a new one from `nextSeq` past SEGMENT_BYTES). */
  private writeUnwritten(nextSeq: number): boolean {
    if (!this.unwritten) return true;
    try {
      if (this.fd === null || this.segmentBytes >= SEGMENT_BYTES) this.rotate(this.firstUnwritten() ?? nextSeq);
      const text = `${this.needsNewline ? '\n' : ''}${this.unwritten}`;
      const bytes = Buffer.from(text);
      let at = 0;
      while (at < bytes.length) at += writeSync(this.fd!, bytes, at);
      this.needsNewline = false;
      this.segmentBytes += bytes.length;
      this.unwritten = '';
      return true;
    } catch {
      // A short write may have left part of a line: the next write starts a fresh one.
      this.needsNewline = true;
      return false;
    }
  }

  private firstUnwritten(): number | null {
    const first = this.unwritten.slice(0, this.unwritten.indexOf('\n'));
    return first ? (parseRecord(first)?.seq ?? null) : null;
  }

  private rotate(firstSeq: number): void {
    if (this.fd !== null) {
      try {
        fdatasyncSync(this.fd);
      } catch {
        // the records are written; only their durability waits for the next sync
      }
      closeSync(this.fd);
      this.fd = null;
    }
    const active = this.segments.at(-1);
    if (active !== undefined && this.segmentBytes < SEGMENT_BYTES) {
      this.fd = openSync(join(this.dir, segmentName(active)), 'a', FILE_MODE);
      return;
    }
    this.fd = openSync(join(this.dir, segmentName(firstSeq)), 'a', FILE_MODE);
    this.segments.push(firstSeq);
    this.segmentBytes = statSync(join(this.dir, segmentName(firstSeq))).size;
    this.needsNewline = false;
  }

  private scheduleSync(): void {
    if (this.syncTimer) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      if (!this.writeUnwritten(this.last + 1)) {
        this.scheduleSync();
        return;
      }
      const fd = this.fd;
      if (fd !== null) fdatasync(fd, () => undefined);
    }, this.unwritten ? 1_000 : SYNC_MS);
    this.syncTimer.unref?.();
  }

  private listSegments(): number[] {
    return readdirSync(this.dir)
      .map((name) => SEGMENT_PATTERN.exec(name)?.[1])
      .filter((first): first is string => first !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }
}
