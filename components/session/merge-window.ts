import type { RenderedMessage } from './types';

/**
 * The list after the newest page arrived again (an append, a branch switch): the older pages
 * already shown stay where the new page joins them (it starts at a message shown, or right after
 * one); a page that joins nothing shown replaces the list, and older pages load again on scroll.
 */
export function mergeNewest(current: RenderedMessage[], newest: RenderedMessage[]): RenderedMessage[] {
  const first = newest[0];
  if (!first) return [];
  const at = current.findIndex((message) => message.id === first.id);
  if (at >= 0) return [...current.slice(0, at), ...newest];
  const parentAt = first.parentId ? current.findIndex((message) => message.id === first.parentId) : -1;
  if (parentAt >= 0) return [...current.slice(0, parentAt + 1), ...newest];
  return newest;
}

/** The element whose scrolling moves the list: the nearest scrolling ancestor, else the page. */
export function scrollParentOf(element: HTMLElement | null): HTMLElement {
  for (let node = element?.parentElement ?? null; node; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node);
    if ((overflowY === 'auto' || overflowY === 'scroll') && node.scrollHeight > node.clientHeight) return node;
  }
  return document.scrollingElement as HTMLElement;
}
