import 'server-only';
import { renderMarkdown, type RenderedMarkdown } from '@/server/render/markdown';
import { sharedViewOfLink, type SharedView, type SharedWindow } from './share-view';

/**
 * Whose turn in the render pool a shared page takes, and whose render cache it fills: the user
 * who made the link. Before, each link rendered as an owner of its own ("share:<link id>"), so two
 * links to one slow session held both workers however fair the pool was to users (issue 27 item 4).
 * The cache is the owner's shares' own, apart from the one their signed-in pages use: a visitor's
 * timing can tell nothing about what the owner read.
 */
export function shareRenderIdentity(ownerId: string): { owner: string; cache: string } {
  return { owner: ownerId, cache: `share:${ownerId}` };
}

/** A page of a shared branch (`window`, as the session page pages) with each message's Markdown rendered as the link's owner. */
export async function renderSharedPage(id: string, viewer: { signedIn: boolean }, window: SharedWindow): Promise<{ view: SharedView; bodies: RenderedMarkdown[] }> {
  const { view, ownerId } = await sharedViewOfLink(id, viewer, window);
  const { owner, cache } = shareRenderIdentity(ownerId);
  const bodies = await Promise.all(view.messages.map((message) => renderMarkdown(message.content, cache, owner)));
  return { view, bodies };
}
