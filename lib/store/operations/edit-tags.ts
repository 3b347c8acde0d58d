import { toRow } from '../registry/row.js';
import { updateSessionFields, withSession } from '../session/session-access.js';
import type { StoreContext } from '../session/store-context.js';
import type { SessionRow } from '../types.js';
import { editTags, tagsOf } from '../organise/tags.js';
import { TagCatalog, type TagColour, type TagSummary } from '../organise/tag-catalog.js';

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

/** One tag catalog (tags.json: colours) per open store, made at its first use. */
const catalogs = new WeakMap<StoreContext, TagCatalog>();
function catalogOf(ctx: StoreContext): TagCatalog {
  let catalog = catalogs.get(ctx);
  if (!catalog) catalogs.set(ctx, (catalog = new TagCatalog(ctx.stateDir)));
  return catalog;
}

/** DESIGN §16: the user's tags with their colours and counts. */
export function listTags(ctx: StoreContext): TagSummary[] {
  return catalogOf(ctx).summarise(ctx.registry.values());
}

export function setTagColour(ctx: StoreContext, name: string, colour: TagColour): { name: string; colour: TagColour } {
  return catalogOf(ctx).setColour(name, colour);
}
