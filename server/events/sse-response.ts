import type { DeliveredEvent, EventHub } from './hub.js';

const HEARTBEAT_MS = 15_000;
// A client that stops reading is cut off after this many queued chunks; it reconnects with
// Last-Event-ID and catches up from the buffer instead of growing server memory.
const MAX_QUEUED_CHUNKS = 5_000;

const encoder = new TextEncoder();
// One event goes to every stream of its user: serialize it once, not once per stream.
const formatted = new WeakMap<DeliveredEvent, string>();

function formatEvent(event: DeliveredEvent): string {
  let text = formatted.get(event);
  if (text === undefined) {
    // JSON.stringify never emits a raw newline, so `data:` stays one line.
    text = `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
    formatted.set(event, text);
  }
  return text;
}

/** Where a stream's text goes: a web ReadableStream (Next) or a node response (server/http/serve.ts). */
export interface EventSink {
  /** false when the client has stopped reading and too much is queued: the stream is closed */
  write(text: string): boolean;
  end(): void;
}

export interface EventChannel {
  close(): void;
}

/**
 * One user's event stream, whatever carries it: replay (or `resync`), then live events, a
 * comment every 15 s, until closed. Null when the user has too many streams open.
 */
export function openEventChannel(
  hub: EventHub,
  userId: string,
  lastEventId: string | null,
  sink: EventSink,
  /** checked before every write: a revoked token or a disabled user's stream ends there */
  stillValid: () => boolean = () => true,
  heartbeatMs = HEARTBEAT_MS,
): EventChannel | null {
  let closed = false;
  let heartbeat: NodeJS.Timeout | undefined;
  const write = (text: string): void => {
    if (closed) return;
    if (!stillValid() || !sink.write(text)) close();
  };
  const recheck = (): void => {
    if (!closed && !stillValid()) close();
  };
  // A move of the user: the stream says so (no id, so Last-Event-ID stays) and ends; the client
  // reconnects after `retry` and resumes, on the new owner, where it stopped.
  const disconnect = (reason: string): void => {
    write(`event: reconnect\ndata: ${JSON.stringify({ reason })}\n\n`);
    close();
  };
  const subscription = hub.subscribe(userId, (event) => write(formatEvent(event)), lastEventId, recheck, disconnect);
  if (!subscription) return null;
  const close = (): void => {
    if (closed) return;
    closed = true;
    subscription.close();
    clearInterval(heartbeat);
    sink.end();
  };
  // The first bytes go out at once, so the client knows the stream is open.
  write(': connected\nretry: 2000\n\n');
  const { replay } = subscription;
  if (replay.kind === 'resync') write(formatEvent({ id: replay.id, type: 'resync', data: {} }));
  else for (const event of replay.events) write(formatEvent(event));
  heartbeat = setInterval(() => write(': keepalive\n\n'), heartbeatMs);
  heartbeat.unref();
  return { close };
}

/** The body of `GET /api/events` as a web stream (the Next route handler). */
export function openEventStream(
  hub: EventHub,
  userId: string,
  lastEventId: string | null,
  signal: AbortSignal,
  stillValid: () => boolean = () => true,
  heartbeatMs = HEARTBEAT_MS,
): ReadableStream<Uint8Array> | null {
  let channel: EventChannel | null = null;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const pending: string[] = [];
  let ended = false;
  const sink: EventSink = {
    write(text) {
      if (!controller) {
        pending.push(text); // before start(): the replay
        return true;
      }
      if ((controller.desiredSize ?? 0) < -MAX_QUEUED_CHUNKS) return false;
      controller.enqueue(encoder.encode(text));
      return true;
    },
    end() {
      ended = true;
      signal.removeEventListener('abort', onAbort);
      try {
        controller?.close();
      } catch {
        // already closed or errored by the runtime
      }
    },
  };
  const onAbort = (): void => channel?.close();
  channel = openEventChannel(hub, userId, lastEventId, sink, stillValid, heartbeatMs);
  if (!channel) return null;
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      for (const text of pending.splice(0)) c.enqueue(encoder.encode(text));
      if (ended) c.close();
      else if (signal.aborted) channel!.close();
      else signal.addEventListener('abort', onAbort);
    },
    cancel: () => channel!.close(),
  });
}
