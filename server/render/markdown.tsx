import 'server-only';
import { MarkdownAsync, defaultUrlTransform } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import type { ReactElement } from 'react';
import { rehypeShiki } from './rehype-shiki';
import { isSameOriginPath, rehypeRawAsText, rehypeTightenElements, SANITIZE_SCHEMA } from './rehype-tighten';

/** Image sources other than this site's paths become empty (and the image is dropped later). */
function urlTransform(url: string, key: string): string {
  if (key === 'src') return isSameOriginPath(url) ? url : '';
  return defaultUrlTransform(url);
}

/**
 * A message's Markdown as React elements, rendered on the server: GFM, then raw HTML turned to
 * text, sanitised with the tightened schema, images and links checked, and code highlighted.
 * Nothing in a message can add script, an event handler or a javascript: URL.
 */
export function renderMarkdown(text: string): Promise<ReactElement> {
  return MarkdownAsync({
    children: text,
    remarkPlugins: [remarkGfm],
    rehypePlugins: [rehypeRawAsText, [rehypeSanitize, SANITIZE_SCHEMA], rehypeTightenElements, rehypeShiki],
    urlTransform,
  });
}
