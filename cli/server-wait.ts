import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from './backend.js';

/**
 * The server cannot take the write now, but will: it is stopped or restarting (no connection),
 * a move has frozen the user (503 + Retry-After), or HAProxy still routes the user to the
 * instance they just left (421). `--watch` waits and sends the same files again: an import is
 * idempotent (known node ids add nothing), so sending again loses and duplicates nothing.
 */
export class ServerNotReadyError extends CliError {
  constructor(
    message: string,
    /** the server's Retry-After in ms; null: it said nothing (no connection), wait as we choose */
    readonly retryAfterMs: number | null,
  ) {
    super(message, 'unavailable');
    this.name = 'ServerNotReadyError';
  }
}

/** The header of the one 421 (server/cluster/misdirected.ts) naming the owner's base URL: the CLI may not import server/. */
export const OWNER_URL_HEADER = 'x-entity-memory-owner-url';

/** Node's fetch failing to reach the server at all: refused, reset, or cut in the middle of the body. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT']);

export function isConnectionFailure(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  }
  return false;
}

/** Retry-After in seconds (the gate's form) or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The statuses that mean "the same request will be taken later": a freeze, a restart behind HAProxy, a user moved (421: HAProxy's map not yet flipped, or sent on to the owner it names). */
export function notReadyStatus(status: number): boolean {
  return status === 503 || status === 502 || status === 421;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** told each time it waits, with why and for how long */
  onWait?: (message: string, waitMs: number) => void;
  /** the wait with no Retry-After: doubled each time up to `maxWaitMs` */
  firstWaitMs?: number;
  maxWaitMs?: number;
}

/**
 * `attempt` until it succeeds or fails for a reason waiting cannot change; null when `signal`
 * aborts while waiting (the caller stops, nothing half-done: the next run sends it again).
 */
export async function untilServerTakesIt<T>(attempt: () => Promise<T>, options: WaitOptions = {}): Promise<T | null> {
  const first = options.firstWaitMs ?? 500;
  const max = options.maxWaitMs ?? 10_000;
  let backoff = first;
  for (;;) {
    if (options.signal?.aborted) return null;
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ServerNotReadyError)) throw error;
      const waitMs = Math.min(error.retryAfterMs ?? backoff, max);
      backoff = error.retryAfterMs === null ? Math.min(backoff * 2, max) : first;
      options.onWait?.(error.message, waitMs);
      await sleep(waitMs, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }
}
