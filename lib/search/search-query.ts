/**
 * Reading hits from the index file: the FTS match (or a LIKE for terms shorter than a trigram),
 * checked against the session rows in chunks, newest first, paged by an opaque cursor.
 */
import type { SessionRow } from '../store/index.js';
import type { DocumentKind } from './documents.js';
import { SearchInputError } from './errors.js';
import { holdsShortTerms, parseQuery, type ParsedQuery } from './query.js';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, type SearchHit, type SearchOptions } from './search-types.js';
import { snippetOf } from './snippet.js';
import type { SqlDatabase } from './sqlite.js';

export function encodeCursor(id: number): string {
  return Buffer.from(JSON.stringify(['fts', id])).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value[0] === 'fts' && Number.isSafeInteger(value[1]) && value[1] > 0) return value[1];
  } catch {
    // fall through
  }
  throw new SearchInputError('invalid cursor');
}

/** LIKE pattern of a substring, with LIKE's own wildcards taken literally. */
function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

interface DocRow {
  id: number;
  session_id: string;
  anchor_id: string | null;
  kind: DocumentKind;
  text: string;
}

export interface SearchRequest {
  parsed: ParsedQuery;
  limit: number;
  scope: NonNullable<SearchOptions['scope']>;
  /** hits of rows older than this id (the cursor's), else from the newest */
  before: number;
}

/** A search's query and options checked (SearchInputError names what is wrong). */
export function searchRequest(q: string, options: SearchOptions): SearchRequest {
  const limit = options.limit ?? SEARCH_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) throw new SearchInputError(`limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
  const scope = options.scope ?? 'all';
  if (!['active', 'archived', 'all'].includes(scope)) throw new SearchInputError('scope must be active, archived or all');
  const parsed = parseQuery(q);
  return { parsed, limit, scope, before: options.cursor ? decodeCursor(options.cursor) : Number.MAX_SAFE_INTEGER };
}

/** Up to `limit` hits older than the row id `before`, in the scope, a session's hits side by side. */
export function readHits(
  db: SqlDatabase,
  rowOf: (sessionId: string) => SessionRow | null,
  { parsed, limit, scope, before: start }: SearchRequest,
): { hits: SearchHit[]; nextCursor: string | null } {
  let before = start;
  const hits: SearchHit[] = [];
  let nextCursor: string | null = null;
  // Read in chunks: hits of deleted sessions or of another scope are skipped, not counted.
  const chunk = Math.max(limit * 2, 64);
  scan: for (;;) {
    const rows = (
      parsed.match
        ? db
            .prepare(
              `SELECT d.id, d.session_id, d.anchor_id, d.kind, d.text FROM docs d
               WHERE d.id IN (SELECT rowid FROM fts WHERE fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?)
               ORDER BY d.id DESC`,
            )
            .all(parsed.match, before, chunk)
        : db.prepare(`SELECT id, session_id, anchor_id, kind, text FROM docs WHERE id < ? AND text LIKE ? ESCAPE '\\' ORDER BY id DESC LIMIT ?`).all(before, likePattern(parsed.short[0]!), chunk)
    ) as unknown as DocRow[];
    for (const doc of rows) {
      before = doc.id;
      const row = rowOf(doc.session_id);
      if (!row) continue;
      if (scope === 'active' && row.archived) continue;
      if (scope === 'archived' && !row.archived) continue;
      if (!holdsShortTerms(doc.text, parsed.short)) continue;
      hits.push({
        sessionId: doc.session_id,
        messageId: doc.anchor_id,
        kind: doc.kind,
        title: row.title,
        preview: row.preview,
        channel: row.channel,
        snippet: snippetOf(doc.text, parsed.terms, { markdown: doc.kind === 'user' || doc.kind === 'assistant' || doc.kind === 'system' }),
        archived: row.archived,
        updatedAt: row.updatedAt,
      });
      if (hits.length === limit) {
        nextCursor = encodeCursor(doc.id);
        break scan;
      }
    }
    if (rows.length < chunk) break;
  }
  return { hits: groupBySession(hits), nextCursor };
}

/** A session's hits next to each other, sessions in the order of their newest hit. */
function groupBySession(hits: SearchHit[]): SearchHit[] {
  const order = new Map<string, SearchHit[]>();
  for (const hit of hits) {
    const group = order.get(hit.sessionId);
    if (group) group.push(hit);
    else order.set(hit.sessionId, [hit]);
  }
  return [...order.values()].flat();
}
