import { InvalidInputError } from '../errors.js';
import { type StoreContext } from '../session/store-context.js';
import { toRow } from '../registry/row.js';
import { SESSION_STATUSES, type SessionMeta, type SessionRow, type SessionStatus } from '../types.js';
import { updateSessionFields, withSession } from '../session/session-access.js';
import { normaliseState, normaliseTags } from '../organise/tags.js';

export interface UpdateSessionInput {
  title?: string;
  pinned?: boolean;
  unread?: boolean;
  group?: string;
  status?: SessionStatus;
  /** the whole list: replaces the session's tags (DESIGN §16) */
  tags?: string[];
  state?: string | null;
}

const STATUSES: readonly string[] = SESSION_STATUSES;

/**
 * update_session: only the given fields, updated_at kept. A title here is a person's rename
 * and sets _user_titled, which stops automatic titles for good.
 */
export function updateSession(ctx: StoreContext, sessionId: string, input: UpdateSessionInput): Promise<SessionRow> {
  const fields: Partial<SessionMeta> = {};
  if (input.title !== undefined) {
    if (typeof input.title !== 'string' || input.title.trim() === '') {
      throw new InvalidInputError('title must not be empty (use regenerate for a model title)');
    }
    fields.title = input.title.trim();
    fields._user_titled = true;
  }
  for (const key of ['pinned', 'unread'] as const) {
    if (input[key] !== undefined) {
      if (typeof input[key] !== 'boolean') throw new InvalidInputError(`${key} must be a boolean`);
      fields[key] = input[key];
    }
  }
  if (input.group !== undefined) {
    if (typeof input.group !== 'string') throw new InvalidInputError('group must be a string');
    fields.group = input.group;
  }
  if (input.status !== undefined) {
    if (!STATUSES.includes(input.status)) throw new InvalidInputError(`status must be one of ${STATUSES.join(', ')}`);
    fields.status = input.status;
  }
  if (input.tags !== undefined) fields['tags'] = normaliseTags(input.tags);
  if (input.state !== undefined) fields['state'] = normaliseState(input.state);
  return withSession(ctx, sessionId, async (session) => toRow(ctx, await updateSessionFields(ctx, session, fields)));
}

/** set_archived: a flag, nothing moves; recency is kept so unarchiving restores the position. */
export function setArchived(ctx: StoreContext, sessionId: string, archived: boolean): Promise<SessionRow> {
  if (typeof archived !== 'boolean') throw new InvalidInputError('archived must be a boolean');
  return withSession(ctx, sessionId, async (session) => toRow(ctx, await updateSessionFields(ctx, session, { archived })));
}
