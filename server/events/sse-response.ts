import type { DeliveredEvent, EventHub } from './hub.js';

export const HEARTBEAT_MS = 15_000;
// A client that stops reading is cut off after this many queued chunks; it reconnects with
// Last-Event-ID and catches up from the buffer instead of growing server memory.
const MAX_QUEUED_CHUNKS = 5_000;

const encoder = new TextEncoder();

export function formatEvent(event: DeliveredEvent): string {
  // JSON.stringify never emits a raw newline, so `data:` stays one line.
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * The body of `GET /api/events` for one user: replay (or `resync`), then live events, a comment
 * every 15 s, until the client goes away. Null when the user has too many streams open.
 */
export function openEventStream(
  hub: EventHub,
  userId: string,
  lastEventId: string | null,
  signal: AbortSignal,
  /** checked before every write: a revoked token or a disabled user's stream ends there */
  stillValid: () => boolean = () => true,
  heartbeatMs = HEARTBEAT_MS,
): ReadableStream<Uint8Array> | null {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;
  const write = (text: string) => {
    if (closed) return;
    if (!stillValid() || (controller.desiredSize ?? 0) < -MAX_QUEUED_CHUNKS) return close();
    controller.enqueue(encoder.encode(text));
  };
  const subscription = hub.subscribe(userId, (event) => write(formatEvent(event)), lastEventId);
  if (!subscription) return null;
  const close = () => {
    if (closed) return;
    closed = true;
    subscription.close();
    clearInterval(heartbeat);
    signal.removeEventListener('abort', close);
    try {
      controller.close();
    } catch {
      // already closed or errored by the runtime
    }
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      // The first bytes go out at once, so the client knows the stream is open.
      write(': connected\nretry: 2000\n\n');
      const { replay } = subscription;
      if (replay.kind === 'resync') write(formatEvent({ id: replay.id, type: 'resync', data: {} }));
      else for (const event of replay.events) write(formatEvent(event));
      heartbeat = setInterval(() => write(': keepalive\n\n'), heartbeatMs);
      heartbeat.unref();
      if (signal.aborted) close();
      else signal.addEventListener('abort', close);
    },
    cancel: close,
  });
}
