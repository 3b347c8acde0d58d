import { openEventStream } from '@/server/events/sse-response';
import { authorizeEvents, EVENT_STREAM_HEADERS, resumeFrom, tooManyStreams } from '@/server/events/events-request';
import { getEventHub } from '@/server/runtime';

export const dynamic = 'force-dynamic';

/**
 * DESIGN §6: the signed-in user's live events, resumed from the Last-Event-ID header. `npm start`
 * serves this path from server/http/serve.ts; this handler is the same stream under `next dev`.
 */
export async function GET(req: Request): Promise<Response> {
  const access = await authorizeEvents(req.headers);
  if (!access.ok) return Response.json(access.body, { status: access.status, headers: 'headers' in access ? access.headers : {} });
  const stream = openEventStream(getEventHub(), access.user.id, resumeFrom(req.headers, req.url), req.signal, access.stillValid);
  if (!stream) return Response.json({ error: tooManyStreams }, { status: 429 });
  return new Response(stream, { headers: EVENT_STREAM_HEADERS });
}
