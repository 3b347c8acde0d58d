import { authenticateRequest } from '@/server/auth/request-auth';
import { getAuthStore, getUserStore } from '@/server/runtime';
import type { UserRecord } from '@/lib/auth/index';
import { admitRead } from '@/server/cluster/user-gate';
import { misdirectedAnswer, type MisdirectedBody } from '@/server/cluster/misdirected';
import { missingScope } from '@/server/http/route-access';

export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-transform keeps compression (which would buffer the stream) off.
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

export type EventsAccess =
  | { ok: true; user: UserRecord; stillValid: () => boolean }
  | { ok: false; status: 401 | 403; body: { error: string } }
  /** the user lives on another instance now (a move): the client goes there */
  | { ok: false; status: 421; body: MisdirectedBody; headers: Record<string, string> };

/**
 * Who may open `GET /api/events` (cookie or Bearer; a token in the URL is never read), with
 * their store opened so that its changes reach the stream.
 */
export async function authorizeEvents(headers: Headers): Promise<EventsAccess> {
  const outcome = await authenticateRequest(headers, getAuthStore());
  if (outcome.kind !== 'ok') {
    return { ok: false, status: 401, body: { error: outcome.kind === 'invalid' ? outcome.message : 'sign in or send Authorization: Bearer <token>' } };
  }
  const { access } = outcome.auth;
  const lacking = missingScope(access, 'read');
  if (lacking !== null) return { ok: false, status: 403, body: { error: lacking } };
  // The stream carries every project's events: a token limited to one project does not open it.
  if (access.projectId !== null) return { ok: false, status: 403, body: { error: `this API token is limited to the project "${access.projectId}"; the event stream carries every project` } };
  const refusal = admitRead(outcome.auth.user.id);
  if (refusal?.kind === 'moved') {
    const answer = misdirectedAnswer(refusal.owner);
    return { ok: false, status: 421, body: answer.body, headers: answer.headers };
  }
  try {
    await getUserStore(outcome.auth.user.id);
  } catch (error) {
    console.error('[events] could not open the session store:', error);
  }
  return { ok: true, user: outcome.auth.user, stillValid: outcome.auth.stillValid };
}

/** The 429 of a stream past the per-user cap (DESIGN §6): what the limit is and what to do. */
export function tooManyStreams(cap: number): string {
  return `too many open event streams for this user (at most ${cap}); close another tab or client and try again`;
}

/**
 * Where a stream resumes: the browser's Last-Event-ID on a reconnect, else the `since` a page was
 * rendered at (a new EventSource cannot set the header).
 */
export function resumeFrom(headers: Headers, url: string): string | null {
  const header = headers.get('last-event-id');
  if (header) return header;
  const since = new URL(url, 'http://local').searchParams.get('since');
  return since && since.length <= 64 ? since : null;
}
