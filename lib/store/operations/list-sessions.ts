import { InvalidInputError } from '../errors.js';
import { encodeCursor } from '../registry/registry.js';
import { type StoreContext } from '../session/store-context.js';
import { toRow } from '../registry/row.js';
import type { ListFilter, ListOptions, ListPage, SessionDetail, SessionMeta, SessionRow } from '../types.js';
import { withSession } from '../session/session-access.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** list_sessions: from memory, newest first, paged by an opaque cursor; never sorts per call. */
export function listSessions(ctx: StoreContext, options: ListOptions = {}): ListPage {
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new InvalidInputError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  if (options.scope !== undefined && !['active', 'archived', 'all'].includes(options.scope)) {
    throw new InvalidInputError('scope must be active, archived or all');
  }
  const { entries, more } = ctx.registry.page(options, limit, options.cursor);
  const last = entries[entries.length - 1];
  return { rows: entries.map((entry) => toRow(ctx, entry)), nextCursor: more && last ? encodeCursor(last) : null };
}

/** One row from memory, or null when the session is not in this store. */
export function getRow(ctx: StoreContext, sessionId: string): SessionRow | null {
  const entry = ctx.registry.get(sessionId);
  return entry ? toRow(ctx, entry) : null;
}

export function countSessions(ctx: StoreContext, filter: ListFilter = {}): number {
  return ctx.registry.count(filter);
}

function redactedCount(meta: SessionMeta): number {
  const count = meta['redacted'];
  return typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? count : 0;
}

export function getSession(ctx: StoreContext, sessionId: string): Promise<SessionDetail> {
  return withSession(ctx, sessionId, (session) => {
    const entry = ctx.registry.get(sessionId)!;
    const meta = session.meta;
    return {
      ...toRow(ctx, entry),
      headId: meta.head_id ?? null,
      redacted: redactedCount(meta),
      projectId: entry.project_id,
      turnCount: typeof meta.turn_count === 'number' ? meta.turn_count : 0,
      workdirs: Array.isArray(meta.workdirs) ? meta.workdirs.filter((dir): dir is string => typeof dir === 'string') : [],
      userTitled: meta._user_titled === true,
    };
  });
}
