import { isSessionId } from '@/lib/store/index';
import { BodyTooLargeError, limitBody } from './body-limit';
import { domainErrorStatus } from './domain-error-status';
import { jsonError, withRouteWrite } from './route-auth';
import { outsideProjectRefusal, reachesSession } from './route-access';

/** `{"session_id": "…"}` is all these requests carry. */
const MAX_ARCHIVE_BODY = 16 * 1024;

/**
 * The seeds' REST archive surface (operations.zh.md "归档"): `POST /api/sessions/archive` and
 * `/unarchive` with `{session_id}` → `{session_id, archived}`. Only the flag changes; updated_at
 * stays, so the session keeps its place. The answers are the seeds' own: 400 `session_id
 * required`, 404 `unknown session`.
 */
export async function archiveRoute(req: Request, archived: boolean): Promise<Response> {
  return withRouteWrite(req.headers, async (caller) => {
    let body: unknown;
    try {
      body = await (await limitBody(req, MAX_ARCHIVE_BODY)).json();
    } catch (error) {
      if (error instanceof BodyTooLargeError) return jsonError(413, 'request body is too large');
      body = null; // not JSON: no session_id in it
    }
    const sessionId = typeof body === 'object' && body !== null ? (body as { session_id?: unknown }).session_id : undefined;
    if (!isSessionId(sessionId)) return jsonError(400, 'session_id required');
    // The caller's own store only: someone else's session is as unknown as a made-up id.
    if (!caller.store.hasSession(sessionId)) return jsonError(404, 'unknown session');
    if (!reachesSession(caller, sessionId)) return jsonError(403, outsideProjectRefusal(caller.access, sessionId));
    try {
      const row = await caller.store.setArchived(sessionId, archived);
      return Response.json({ session_id: row.id, archived: row.archived });
    } catch (error) {
      if (domainErrorStatus(error)?.status === 404) return jsonError(404, 'unknown session'); // deleted meanwhile
      throw error;
    }
  });
}
