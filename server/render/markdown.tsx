import 'server-only';
import { MarkdownAsync, defaultUrlTransform } from 'react-markdown';
import rehypeKatex from 'rehype-katex';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import { LRUCache } from 'lru-cache';
import type { ReactElement } from 'react';
import { rehypeCodeFrame } from './rehype-code-frame';
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
    remarkPlugins: [remarkGfm, remarkMath],
    // KaTeX after sanitising: its markup is ours; the formula's text reaches it as text.
    rehypePlugins: [rehypeRawAsText, [rehypeSanitize, SANITIZE_SCHEMA], rehypeTightenElements, [rehypeKatex, { throwOnError: false }], rehypeShiki, rehypeCodeFrame],
    urlTransform,
  });
}

/**
 * A message's Markdown as React elements, rendered on the server: GFM, then raw HTML turned to
 * text, sanitised with the tightened schema, images and links checked, and code highlighted.
 * Nothing in a message can add script, an event handler or a javascript: URL.
 */
export function renderMarkdown(text: string): Promise<ReactElement> {
  let element = rendered.get(text);
  if (!element) {
    element = render(text);
    rendered.set(text, element);
    // A failure is not kept: the next request renders again.
    element.catch(() => rendered.delete(text));
  }
  return element;
}
