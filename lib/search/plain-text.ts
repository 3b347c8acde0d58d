/**
 * The words of a Markdown message as a reader sees them, for the text of a hit: `**bold**`,
 * `[a link](url)` or a fenced block's backticks are syntax, not words, and read as noise in a
 * one-line snippet. Parsed with micromark (GFM), the same grammar the page renders with.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

interface MdNode {
  type: string;
  value?: string;
  alt?: string | null;
  children?: MdNode[];
}

/** Inline nodes run together; anything else is a block and ends with a space. */
const INLINE = new Set(['text', 'emphasis', 'strong', 'delete', 'inlineCode', 'link', 'linkReference', 'image', 'imageReference', 'break', 'html', 'footnoteReference']);

function collect(node: MdNode, out: string[]): void {
  if (node.type === 'image' || node.type === 'imageReference') {
    if (node.alt) out.push(node.alt);
    return;
  }
  if (node.type === 'break') {
    out.push(' ');
    return;
  }
  if (typeof node.value === 'string' && node.type !== 'definition') out.push(node.value);
  for (const child of node.children ?? []) collect(child, out);
  if (!INLINE.has(node.type)) out.push(' ');
}

export function markdownPlainText(markdown: string): string {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as MdNode;
  const out: string[] = [];
  collect(tree, out);
  return out.join('');
}
