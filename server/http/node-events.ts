import type http from 'node:http';
import { openEventChannel } from '@/server/events/sse-response';
import { authorizeEvents, EVENT_STREAM_HEADERS, resumeFrom, tooManyStreams } from '@/server/events/events-request';
import { getEventHub } from '@/server/runtime';

// A client that stops reading is cut off once this much is queued for it; it reconnects with
// Last-Event-ID and catches up from the buffer instead of growing server memory.
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/** `GET /api/events` on node's http directly: one socket write per event, no stream layers. */
export async function serveEvents(req: http.IncomingMessage, res: http.ServerResponse, headers: Headers, extra: Record<string, string>): Promise<void> {
  const json = (status: number, body: unknown): void => {
    res.writeHead(status, { ...extra, 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (req.method !== 'GET') return json(405, { error: 'use GET' });
  const access = await authorizeEvents(headers);
  if (!access.ok) {
    res.writeHead(access.status, { ...extra, ...('headers' in access ? access.headers : {}), 'content-type': 'application/json' }).end(JSON.stringify(access.body));
    return;
  }
  if (res.destroyed) return;
  const channel = openEventChannel(
    getEventHub(),
    access.user.id,
    resumeFrom(headers, req.url ?? '/'),
    {
      write: (text) => {
        // The status goes out with the first bytes, so a refused stream can still answer 429.
        if (!res.headersSent) res.writeHead(200, { ...extra, ...EVENT_STREAM_HEADERS });
        if (res.writableLength > MAX_QUEUED_BYTES) return false;
        res.write(text);
        return true;
      },
      end: () => res.end(),
    },
    access.stillValid,
  );
  if (!channel) return json(429, { error: tooManyStreams(getEventHub().maxStreamsPerUser) });
  res.on('close', () => channel.close());
}
