/**
 * The crash test's tRPC calls over HTTP with a client's Bearer token, and the paged reads built on
 * them. A request the kill cuts off rejects with Killed; a 5xx is a violation; any other non-200 a
 * refusal.
 */
import { Killed, type Client } from './crash-model.js';
import type { CrashRun } from './crash-run.js';

export type MessageNode = { id: string; role: string; content: string };
export type SessionRow = { id: string; title: string; archived: boolean; pinned: boolean; status: string };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function call(run: CrashRun, client: Client, procedure: string, input: unknown, kind: 'query' | 'mutation' = 'mutation'): Promise<unknown> {
  run.figures.ops++;
  const url = kind === 'query' ? `${run.base}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}` : `${run.base}/api/trpc/${procedure}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: kind === 'query' ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
      body: kind === 'query' ? undefined : JSON.stringify(input),
      signal: run.controller.signal,
    });
    text = await response.text();
  } catch {
    throw new Killed();
  }
  if (response.status >= 500) {
    run.figures.errors5xx++;
    run.violation(`${procedure} answered ${response.status}: ${text.slice(0, 200)}`);
    throw new Error('5xx');
  }
  if (response.status !== 200) throw new Error(`${procedure}: ${response.status} ${text.slice(0, 200)}`);
  run.figures.acked++;
  return (JSON.parse(text) as { result: { data: unknown } }).result.data;
}

/** Every message node of a session, all pages. */
export async function nodesOf(run: CrashRun, client: Client, sessionId: string): Promise<MessageNode[]> {
  const all: MessageNode[] = [];
  let cursor: string | null = null;
  do {
    const page = (await call(run, client, 'message.nodes', { sessionId, limit: 200, cursor }, 'query')) as { messages: MessageNode[]; nextCursor: string | null };
    all.push(...page.messages);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/** Every session of the client's user as the registry lists it, all pages, archived included. */
export async function listAllSessions(run: CrashRun, client: Client): Promise<SessionRow[]> {
  const rows: SessionRow[] = [];
  let cursor: string | null = null;
  do {
    const page = (await call(run, client, 'session.list', { scope: 'all', limit: 200, cursor }, 'query')) as { rows: SessionRow[]; nextCursor: string | null };
    rows.push(...page.rows);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

/** Every session and message id search finds for a tag (all pages, archived included). */
export async function searchHits(run: CrashRun, client: Client, tag: string): Promise<{ sessions: Set<string>; messages: Set<string> }> {
  const sessions = new Set<string>();
  const messages = new Set<string>();
  let cursor: string | null = null;
  do {
    const page = (await call(run, client, 'session.search', { q: tag, scope: 'all', limit: 100, cursor }, 'query')) as { hits: { sessionId: string; messageId: string | null }[]; nextCursor: string | null };
    for (const hit of page.hits) {
      sessions.add(hit.sessionId);
      if (hit.messageId) messages.add(hit.messageId);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return { sessions, messages };
}
