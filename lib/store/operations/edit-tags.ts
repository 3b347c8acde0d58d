import { toRow } from '../registry/row.js';
import { updateSessionFields, withSession } from '../session/session-access.js';
import type { StoreContext } from '../session/store-context.js';
import type { SessionRow } from '../types.js';
import { editTags, tagsOf } from '../organise/tags.js';

/**
 * Tags added to and taken from one session, read and written under its lock, so two tabs
 * tagging at once (or a bulk edit beside an agent's tag_session) each keep the other's tag.
 */
export function editSessionTags(ctx: StoreContext, sessionId: string, add: readonly string[], remove: readonly string[]): Promise<SessionRow> {
  return withSession(ctx, sessionId, async (session) => {
    const tags = editTags(tagsOf(session.meta['tags']), add, remove);
    return toRow(ctx, await updateSessionFields(ctx, session, { tags }));
  });
}
