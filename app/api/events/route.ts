import { authenticateRequest } from '@/server/auth/request-auth';
import { openEventStream } from '@/server/events/sse-response';
import { getAuthStore, getEventHub, getUserStore } from '@/server/runtime';

export const dynamic = 'force-dynamic';

/**
 * DESIGN §6: the signed-in user's live events (cookie or Bearer; a token in the URL is never
 * read). Resumes from the Last-Event-ID header.
 */
export async function GET(req: Request): Promise<Response> {
  const outcome = await authenticateRequest(req.headers, getAuthStore());
  if (outcome.kind !== 'ok') {
    const message = outcome.kind === 'invalid' ? outcome.message : 'sign in or send Authorization: Bearer <token>';
    return Response.json({ error: message }, { status: 401 });
  }
  const { user, stillValid } = outcome.auth;
  try {
    // Opening the store attaches it to the hub, so its changes reach this stream.
    await getUserStore(user.id);
  } catch (error) {
    console.error('[events] could not open the session store:', error);
  }
  const stream = openEventStream(getEventHub(), user.id, req.headers.get('last-event-id'), req.signal, stillValid);
  if (!stream) return Response.json({ error: 'too many open event streams (at most 20 per user)' }, { status: 429 });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      // no-transform keeps compression (which would buffer the stream) off.
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}
