import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { agentTraceJsonl, allSessionIds, ExportTooLargeError, markdownExport, markdownLimitFromEnv, sessionBundle, sessionJson, sessionsZip } from '@/lib/export/index';
import { isSessionId } from '@/lib/store/index';
import { decodePathSegment } from './decode-path-segment';
import { domainErrorStatus } from './domain-error-status';
import { authenticateRoute, type RouteCaller } from './route-auth';
import { auditExport } from '@/server/audit/audit-route';
import { reachesSession } from './route-access';
import { NON_PAGE_CSP, STATIC_SECURITY_HEADERS } from './security-headers';

/** Sessions one zip request may name: a form of ids stays far below the body limit. */
export const MAX_ZIP_SESSIONS = 10_000;
const MAX_FORM_BYTES = 2 * 1024 * 1024;

const BASE_HEADERS: Record<string, string> = {
  ...STATIC_SECURITY_HEADERS,
  'content-security-policy': NON_PAGE_CSP,
  'cache-control': 'private, no-store',
};

type Chunks = AsyncIterable<string | Uint8Array> | Iterable<string>;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Chunks | string;
  /** stop the producer when the client goes away (git) */
  cancel?: () => void;
}

function errorAnswer(status: number, error: string, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ error }) };
}

function attachment(filename: string, type: string): Record<string, string> {
  return { 'content-type': type, 'content-disposition': `attachment; filename="${filename}"`, 'x-content-type-options': 'nosniff' };
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return headers;
}

/** Query switches: `1`/`true`/`on` and `0`/`false`/`off`; anything else is a 400. */
function flag(params: URLSearchParams, name: string, fallback: boolean): boolean | string {
  const value = params.get(name);
  if (value === null || value === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(value)) return true;
  if (['0', 'false', 'off', 'no'].includes(value)) return false;
  return `${name} must be 1 or 0, not ${JSON.stringify(value.slice(0, 40))}`;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return null;
    parts.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(parts).toString('utf8'));
}

async function zipAnswer(req: IncomingMessage, caller: RouteCaller, params: URLSearchParams): Promise<Answer> {
  let named: string[] | null = params.has('ids') ? params.getAll('ids').flatMap((v) => v.split(',')).filter(Boolean) : null;
  if (req.method === 'POST') {
    const form = await readForm(req);
    if (!form) return errorAnswer(413, 'the list of sessions is too large');
    named = form.getAll('ids').flatMap((v) => v.split(',')).filter(Boolean);
    if (named.length === 0) return errorAnswer(400, 'ids required: the sessions to export');
  }
  if (named) {
    if (named.length > MAX_ZIP_SESSIONS) return errorAnswer(400, `at most ${MAX_ZIP_SESSIONS} sessions in one zip`);
    const bad = named.find((id) => !isSessionId(id)) as string | undefined;
    if (bad !== undefined) return errorAnswer(400, `invalid session id: ${JSON.stringify(bad.slice(0, 140))}`);
    // Another user's session reads as one that does not exist.
    const missing = named.find((id) => !caller.store.hasSession(id) || !reachesSession(caller, id));
    if (missing !== undefined) return errorAnswer(404, `unknown session: ${missing}`);
  }
  const ids = named ? [...new Set(named)] : allSessionIds(caller.store).filter((id) => reachesSession(caller, id));
  return { status: 200, headers: attachment('entity-memory-sessions.zip', 'application/zip'), body: sessionsZip(caller.store, ids) };
}

async function sessionAnswer(caller: RouteCaller, sessionId: string, params: URLSearchParams): Promise<Answer> {
  if (!isSessionId(sessionId)) return errorAnswer(400, 'invalid session id');
  if (!caller.store.hasSession(sessionId) || !reachesSession(caller, sessionId)) return errorAnswer(404, `unknown session: ${sessionId}`);
  const format = params.get('format') ?? 'json';
  if (format === 'json') {
    // The first chunk reads the session, so an error is still a status (see send).
    return { status: 200, headers: attachment(`${sessionId}.json`, 'application/json; charset=utf-8'), body: sessionJson(caller.store, sessionId) };
  }
  if (format === 'md') {
    const toolCalls = flag(params, 'toolCalls', true);
    const reasoning = flag(params, 'reasoning', false);
    if (typeof toolCalls === 'string') return errorAnswer(400, toolCalls);
    if (typeof reasoning === 'string') return errorAnswer(400, reasoning);
    const markdown = await markdownExport(caller.store, sessionId, {
      toolCalls,
      reasoning,
      limitBytes: markdownLimitFromEnv(),
      attachmentUrl: (id, file) => `/api/attachments/${encodeURIComponent(id)}/${encodeURIComponent(file)}`,
    });
    return {
      status: 200,
      headers: { ...attachment(`${sessionId}.md`, 'text/markdown; charset=utf-8'), 'content-length': String(markdown.bytes) },
      body: markdown.parts(),
    };
  }
  if (format === 'bundle') {
    const bundle = await sessionBundle(caller.store, sessionId);
    return { status: 200, headers: attachment(`${sessionId}.bundle`, 'application/x-git-bundle'), body: bundle.chunks, cancel: bundle.cancel };
  }
  if (format === 'agent-trace') {
    return { status: 200, headers: attachment(`${sessionId}.agent-trace.jsonl`, 'application/jsonl; charset=utf-8'), body: agentTraceJsonl(caller.store, sessionId) };
  }
  return errorAnswer(400, 'format must be md, json, bundle or agent-trace');
}

async function decide(req: IncomingMessage): Promise<Answer> {
  const url = new URL(req.url ?? '/', 'http://local');
  const rest = url.pathname.slice('/api/export/'.length);
  const isZip = rest === 'all.zip';
  const allowed = isZip ? ['GET', 'HEAD', 'POST'] : ['GET', 'HEAD'];
  if (!allowed.includes(req.method ?? 'GET')) return errorAnswer(405, 'method not allowed', { allow: allowed.join(', ') });
  // A POST names sessions by form: the Origin check of writes applies to it (a cross-site form
  // could otherwise make the browser download on the user's cookie; harmless, but refused).
  const caller = await authenticateRoute(headersOf(req), { write: req.method === 'POST', scope: 'read' });
  // A refusal (401, 403, a moved user's 421) goes out as it was made: its headers and body are the answer.
  if (caller instanceof Response) return { status: caller.status, headers: Object.fromEntries(caller.headers), body: await caller.text() };
  const answer = await exportAnswer(req, caller, url, isZip, rest);
  await auditExport(caller, req.headers, url, answer.status);
  return answer;
}

async function exportAnswer(req: IncomingMessage, caller: RouteCaller, url: URL, isZip: boolean, rest: string): Promise<Answer> {
  try {
    if (isZip) return await zipAnswer(req, caller, url.searchParams);
    if (rest.includes('/') || rest === '') return errorAnswer(404, 'not found');
    const sessionId = decodePathSegment(rest);
    if (sessionId === null) return errorAnswer(400, 'the session id in the URL has malformed percent-encoding');
    return await sessionAnswer(caller, sessionId, url.searchParams);
  } catch (error) {
    if (error instanceof ExportTooLargeError) return errorAnswer(413, error.message);
    const refused = domainErrorStatus(error);
    if (refused === null) throw error;
    return errorAnswer(refused.status, refused.message);
  }
}

/** Write the chunks as they come, waiting for the socket to drain: memory stays one chunk deep. */
async function send(req: IncomingMessage, res: ServerResponse, answer: Answer): Promise<void> {
  for (const [name, value] of Object.entries({ ...BASE_HEADERS, ...answer.headers })) res.setHeader(name, value);
  if (typeof answer.body === 'string') {
    res.statusCode = answer.status;
    res.end(req.method === 'HEAD' ? undefined : answer.body);
    return;
  }
  let gone = false;
  res.on('close', () => {
    gone = !res.writableFinished;
    if (gone) answer.cancel?.();
  });
  const iterator = (Symbol.asyncIterator in answer.body ? answer.body[Symbol.asyncIterator]() : answer.body[Symbol.iterator]()) as AsyncIterator<string | Uint8Array>;
  // The first chunk before the status: a session deleted meanwhile is still a 404, not a cut file.
  let next: IteratorResult<string | Uint8Array>;
  try {
    next = await iterator.next();
  } catch (error) {
    const refused = domainErrorStatus(error);
    if (refused === null) throw error;
    res.removeHeader('content-disposition');
    return send(req, res, errorAnswer(refused.status, refused.message));
  }
  res.statusCode = answer.status;
  if (req.method === 'HEAD') {
    answer.cancel?.();
    await iterator.return?.();
    res.end();
    return;
  }
  try {
    while (!next.done) {
      if (gone) {
        await iterator.return?.();
        return;
      }
      if (!res.write(next.value)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      next = await iterator.next();
    }
    res.end();
  } catch (error) {
    // Past the headers nothing can be said any more: the cut connection tells the client.
    console.error('[export]', error);
    res.destroy(error as Error);
  }
}

/**
 * `GET /api/export/<sessionId>?format=md|json|bundle` (Markdown: `toolCalls`, `reasoning`) and
 * `GET|POST /api/export/all.zip` (all of the caller's sessions, or `ids`), as downloads.
 * Cookie or Bearer; another user's session is a 404 like an unknown one. Served by node's
 * http in serve.ts and by pages/api/export under `next start`/`next dev`.
 */
export async function serveExport(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let answer: Answer;
  try {
    answer = await decide(req);
  } catch (error) {
    console.error('[export]', error);
    answer = errorAnswer(500, 'the export failed');
  }
  await send(req, res, answer);
}
