import { closeSync, fsyncSync, openSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DIR_MODE, FILE_MODE } from '../fs/atomic-write.js';
import { AuditError, boundedEntry, matchesFilter, parseAuditLine, type AuditEntry, type AuditLog, type AuditPage, type AuditQuery, type ListedAuditEntry } from './audit-entry.js';
import { linesBackwards } from './lines-backwards.js';

export const AUDIT_LOG_FILE = 'audit.log';

/** The clocks of two processes writing the same file may disagree a little: `since` stops the read only past this. */
const SINCE_SLACK_MS = 60_000;

interface Waiting {
  line: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface FileAuditLogOptions {
  /** how the file is made durable; tests hold it to see that nothing is acknowledged before it */
  sync?: (handle: FileHandle) => Promise<void>;
}

/**
 * `<data>/auth/audit.log`: JSON lines, appended only (O_APPEND), never rotated by the server.
 * Appends that arrive while one is being synced wait and go together in one write and one
 * fdatasync (group commit); each append resolves only after the sync that covers it. One write
 * per batch on an O_APPEND descriptor keeps lines whole when two processes append. A line torn
 * by a crash is ended with a newline before the next batch and skipped by every read.
 */
export class FileAuditLog implements AuditLog {
  private handle: Promise<FileHandle> | null = null;
  private waiting: Waiting[] = [];
  private draining: Promise<void> | null = null;
  private readonly sync: (handle: FileHandle) => Promise<void>;

  constructor(
    readonly path: string,
    options: FileAuditLogOptions = {},
  ) {
    this.sync = options.sync ?? ((handle) => handle.datasync());
  }

  append(entry: AuditEntry): Promise<void> {
    const line = `${JSON.stringify(boundedEntry(entry))}\n`;
    return new Promise((resolve, reject) => {
      this.waiting.push({ line, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      try {
        const handle = await this.open();
        await writeWhole(handle, Buffer.from(batch.map((waiting) => waiting.line).join(''), 'utf8'));
        await this.sync(handle);
        for (const waiting of batch) waiting.resolve();
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.draining = null;
  }

  private open(): Promise<FileHandle> {
    this.handle ??= openForAppend(this.path).catch((error: unknown) => {
      this.handle = null;
      throw error;
    });
    return this.handle;
  }

  async list(query: AuditQuery): Promise<AuditPage> {
    let handle: FileHandle;
    try {
      handle = await open(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], next: null };
      throw error;
    }
    try {
      const size = (await handle.stat()).size;
      if (query.before !== undefined && (!Number.isSafeInteger(query.before) || query.before < 0 || query.before > size)) {
        throw new AuditError('BAD_REQUEST', 'before: not a position of this audit log (take it from the previous page)');
      }
      const entries: ListedAuditEntry[] = [];
      for await (const line of linesBackwards(handle, query.before ?? size)) {
        const entry = parseAuditLine(line.text);
        if (!entry) continue;
        if (query.since !== undefined && entry.at < query.since - SINCE_SLACK_MS) break;
        if (!matchesFilter(entry, query)) continue;
        // One match past the page says there is an older page.
        if (entries.length === query.limit) return { entries, next: Number(entries.at(-1)!.id) };
        entries.push({ id: String(line.offset), ...entry });
      }
      return { entries, next: null };
    } finally {
      await handle.close();
    }
  }

  async close(): Promise<void> {
    await this.draining;
    const handle = await this.handle?.catch(() => null);
    this.handle = null;
    await handle?.close();
  }
}

async function openForAppend(path: string): Promise<FileHandle> {
  await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
  const handle = await open(path, 'a+', FILE_MODE);
  const { size } = await handle.stat();
  if (size === 0) {
    // A new file: its name is durable only once the directory is synced.
    syncDirectory(dirname(path));
    return handle;
  }
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  // A crash tore the last line: end it, so the next entry starts a line of its own.
  if (last[0] !== 0x0a) await writeWhole(handle, Buffer.from('\n'));
  return handle;
}

async function writeWhole(handle: FileHandle, bytes: Buffer): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten;
}

function syncDirectory(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
