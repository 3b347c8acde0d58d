import 'server-only';
import { MarkdownAsync, defaultUrlTransform } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { LRUCache } from 'lru-cache';
import { createElement, isValidElement, type ReactElement } from 'react';
import { rehypeShiki } from './rehype-shiki';
import { isSameOriginPath, rehypeRawAsText, rehypeTightenElements, SANITIZE_SCHEMA } from './rehype-tighten';

/** Image sources other than this site's paths become empty (and the image is dropped later). */
function urlTransform(url: string, key: string): string {
  if (key === 'src') return isSameOriginPath(url) ? url : '';
  return defaultUrlTransform(url);
}

/**
 * Rendered messages by their text. A message never changes once written, so a page opened again
 * (or its newest part fetched again after an append) renders only what is new. Bounded by the
 * size of the texts kept; the same text renders the same whichever session it is in.
 */
const shared = globalThis as typeof globalThis & { __emRendered?: LRUCache<string, Promise<ReactElement>> };
const rendered = (shared.__emRendered ??= new LRUCache<string, Promise<ReactElement>>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (_value, text) => text.length * 3 + 64,
}));

function render(text: string): Promise<ReactElement> {
  return MarkdownAsync({
    children: text,
    remarkPlugins: [remarkGfm],
    rehypePlugins: [rehypeRawAsText, [rehypeSanitize, SANITIZE_SCHEMA], rehypeTightenElements, rehypeShiki],
    urlTransform,
  });
}

/**
 * A message's Markdown as React elements, rendered on the server: GFM, then raw HTML turned to
 * text, sanitised with the tightened schema, images and links checked, and code highlighted.
 * Nothing in a message can add script, an event handler or a javascript: URL.
 */
export async function renderMarkdown(text: string): Promise<ReactElement> {
  let element = rendered.get(text);
  if (!element) {
    element = render(text);
    rendered.set(text, element);
    // A failure is not kept: the next request renders again.
    element.catch(() => rendered.delete(text));
  }
  return freshCopy(await element) as ReactElement;
}

/**
 * A copy of a cached tree made of new objects. The RSC encoder writes an object it has already
 * written as a reference to its first place; two messages of the same text (two empty tool steps,
 * two "Done.") would share one tree, and such a reference into another message's tree fails to
 * resolve ("Invalid reference.") and takes the whole page down.
 */
function freshCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(freshCopy);
  if (isValidElement(value)) {
    const props: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(value.props as Record<string, unknown>)) props[name] = freshCopy(prop);
    if (value.key !== null) props['key'] = value.key;
    return createElement(value.type, props);
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, freshCopy(inner)]));
  }
  return value;
}
