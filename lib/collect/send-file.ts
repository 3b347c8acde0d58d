import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** Where the collector sends files and as whom (DESIGN §17). */
export interface CollectServer {
  /** the server's base URL, e.g. https://memory.example.com */
  url: string;
  token: string;
  /** the machine's name every session is marked with */
  machine: string;
}

/** The counts of the import's report the collector prints. */
export interface SentReport {
  added: number;
  updated: number;
  unchanged: number;
  alreadyRecorded: number;
  skipped: { file: string; line: number; reason: string }[];
}

/** Worth trying again later (the server is down, restarting, frozen for a move or out of disk). */
export class RetryLater extends Error {
  override name = 'RetryLater';
}

/** The server refuses this file as it is (too large, not a format): resending it will not help. */
export class FileRefused extends Error {
  override name = 'FileRefused';
}

/** The server refuses the collector itself (a wrong or revoked token): it stops and says so. */
export class CollectRefused extends Error {
  override name = 'CollectRefused';
}

const RETRY_STATUSES = new Set([408, 421, 425, 429, 502, 503, 504]);
/** What the import says of one file (too large, not a format it reads): that file's, not the collector's. */
const FILE_REFUSALS = new Set([400, 413, 415, 422]);

async function reasonOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300) || response.statusText;
}

/**
 * The file's first `end` bytes (whole lines) to `POST /api/import`, the one way in: the import
 * keeps a session's known messages and adds only the new ones, so a resend duplicates nothing.
 * `name` is the file's path under its root (`projects/<folder>/<id>.jsonl`): the import reads
 * a sub-agent's transcript and a rollout's id from it.
 */
export async function sendFile(server: CollectServer, name: string, handle: FileHandle, end: number): Promise<SentReport> {
  const target = new URL('/api/import', server.url);
  target.searchParams.set('name', name);
  target.searchParams.set('machine', server.machine);
  const body = Readable.toWeb(handle.createReadStream({ start: 0, end: end - 1, autoClose: false })) as ReadableStream<Uint8Array>;
  let response: Response;
  try {
    response = await fetch(target, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new RetryLater(`${server.url} did not answer (${cause?.code ?? cause?.message ?? (error as Error).message})`);
  }
  if (response.ok) return (await response.json()) as SentReport;
  const reason = await reasonOf(response);
  if (response.status >= 500 || RETRY_STATUSES.has(response.status)) throw new RetryLater(`${server.url} answered ${response.status}: ${reason}`);
  if (response.status === 401 || response.status === 403) throw new CollectRefused(`${server.url} refused the token (${response.status}: ${reason})`);
  if (FILE_REFUSALS.has(response.status)) throw new FileRefused(`${response.status}: ${reason}`);
  // 404 and the like: no Entity Memory import there; marking files sent would lose them
  throw new CollectRefused(`${target.origin}${target.pathname} answered ${response.status} (${reason}): is --server an Entity Memory server?`);
}
