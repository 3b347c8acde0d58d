import type { Element, Root, RootContent } from 'hast';
import { defaultSchema, type Options as SanitizeSchema } from 'rehype-sanitize';
import { isAttachmentPath } from '@/server/http/attachment-path';

/**
 * GitHub's schema, tightened: links only to http, https and mailto (never javascript: or data:),
 * images only by a path on this site (no protocol at all: a remote image would track the reader).
 */
export const SANITIZE_SCHEMA: SanitizeSchema = {
  ...defaultSchema,
  protocols: { ...defaultSchema.protocols, href: ['http', 'https', 'mailto'], cite: ['http', 'https'], longDesc: [], src: [] },
  clobberPrefix: 'msg-',
};

/** A path on this origin: "/x", not "//host/x" nor "/\\host". */
export function isSameOriginPath(url: string): boolean {
  return /^\/(?![/\\])/.test(url);
}

/**
 * HTML written in a message is shown as the text it is: the message said it, nothing runs it.
 * Runs before sanitising, which would drop it without a trace.
 */
export function rehypeRawAsText() {
  return (tree: Root): void => {
    const visit = (parent: Root | Element) => {
      parent.children = parent.children.map((child): RootContent => {
        if ((child as { type: string }).type === 'raw') return { type: 'text', value: (child as unknown as { value: string }).value };
        if (child.type === 'element') visit(child);
        return child;
      }) as typeof parent.children;
    };
    visit(tree);
  };
}

/** After sanitising: drop images that are not a session's attachment; links to other sites open apart, without referrer. */
export function rehypeTightenElements() {
  return (tree: Root): void => {
    const visit = (parent: Root | Element) => {
      parent.children = parent.children.filter((child) => {
        if (child.type !== 'element') return true;
        if (child.tagName === 'img') {
          const src = child.properties['src'];
          if (typeof src !== 'string' || !isAttachmentPath(src)) return false;
        }
        if (child.tagName === 'a') {
          const href = child.properties['href'];
          if (typeof href === 'string' && /^https?:/i.test(href)) {
            child.properties['target'] = '_blank';
            child.properties['rel'] = ['noopener', 'noreferrer', 'nofollow'];
          }
        }
        visit(child);
        return true;
      }) as typeof parent.children;
    };
    visit(tree);
  };
}
