import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { atomicWriteFile, DIR_MODE, FILE_MODE } from '@/lib/fs/atomic-write';

/** Where an OpenAI Responses reply was recorded: what its id as a later previous_response_id continues. */
export interface RecordedResponse {
  sessionId: string;
  nodeId: string;
  fingerprint: string;
}

/**
 * The Responses ids of one user (DESIGN §12 "the session of a previous_response_id"), on disk
 * so a restart still places the next exchange: `users/<id>/proxy-responses.jsonl`, one line per
 * reply, appended and synced right after its turn commit; rewritten with the newest `cap` when
 * it grows past twice that. A torn last line (a crash mid-append) is skipped when read.
 */
export class ResponseIndex {
  private entries: Map<string, RecordedResponse> | null = null;
  private lines = 0;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly cap = 10_000,
  ) {}

  private load(): Map<string, RecordedResponse> {
    if (this.entries) return this.entries;
    const entries = new Map<string, RecordedResponse>();
    let text = '';
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      // none yet
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      this.lines++;
      try {
        const { id, sessionId, nodeId, fingerprint } = JSON.parse(line) as Record<string, unknown>;
        if (typeof id === 'string' && typeof sessionId === 'string' && typeof nodeId === 'string' && typeof fingerprint === 'string') {
          entries.delete(id);
          entries.set(id, { sessionId, nodeId, fingerprint });
        }
      } catch {
        // a torn line
      }
    }
    this.entries = entries;
    return entries;
  }

  get(responseId: string): RecordedResponse | null {
    return this.load().get(responseId) ?? null;
  }

  /** Resolves once the entry is on disk (synced). */
  add(responseId: string, entry: RecordedResponse): Promise<void> {
    const entries = this.load();
    entries.delete(responseId);
    entries.set(responseId, entry);
    while (entries.size > this.cap) entries.delete(entries.keys().next().value!);
    const line = `${JSON.stringify({ id: responseId, ...entry })}\n`;
    this.lines++;
    const compact = this.lines > this.cap * 2;
    if (compact) this.lines = entries.size;
    const text = compact ? [...entries].map(([id, value]) => JSON.stringify({ id, ...value })).join('\n') + '\n' : null;
    const run = this.writes.then(async () => {
      if (text !== null) {
        await atomicWriteFile(this.path, text);
        return;
      }
      if (!existsSync(dirname(this.path))) mkdirSync(dirname(this.path), { recursive: true, mode: DIR_MODE });
      const handle = await open(this.path, 'a', FILE_MODE);
      try {
        await handle.write(line);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    });
    this.writes = run.catch(() => {});
    return run;
  }
}
