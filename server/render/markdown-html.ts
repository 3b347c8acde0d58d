import { renderToStaticMarkup } from 'react-dom/server';
import { MarkdownAsync, defaultUrlTransform } from 'react-markdown';
import rehypeKatex from 'rehype-katex';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import { rehypeCodeFrame } from './rehype-code-frame';
import { rehypeShiki } from './rehype-shiki';
import { isSameOriginPath, rehypeRawAsText, rehypeTightenElements, SANITIZE_SCHEMA } from './rehype-tighten';

/**
 * How deep the Markdown tree may go (a quote in a quote counts one level, a list in a list two).
 * The steps after parsing recurse per level: 3,000 nested `>` overflow the stack. No message a
 * person reads nests anywhere near this deep.
 */
export const MAX_TREE_DEPTH = 100;

/** A message nested deeper than MAX_TREE_DEPTH: shown as plain text. */
export class NestingTooDeepError extends Error {
  constructor() {
    super(`Markdown nested deeper than ${MAX_TREE_DEPTH} levels`);
    this.name = 'NestingTooDeepError';
  }
}

interface TreeNode {
  children?: TreeNode[];
}

/** Measured without recursion (the tree is what may be too deep), before anything recurses over it. */
export function treeDepth(root: TreeNode): number {
  let deepest = 0;
  const stack: Array<[TreeNode, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    for (const child of node.children ?? []) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The most `>` a line opens with (spaces between them allowed): its quote depth. Checked before
 * parsing, since the parser's cost grows with the square of the depth (3,000 levels: up to 3 s).
 */
export function deepestQuote(text: string): number {
  let deepest = 0;
  let depth = 0;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 10) {
      atLineStart = true;
      depth = 0;
    } else if (atLineStart && char === 62) {
      if (++depth > deepest) deepest = depth;
    } else if (!(atLineStart && (char === 32 || char === 9))) {
      atLineStart = false;
    }
  }
  return deepest;
}

function remarkBoundNesting() {
  return (tree: TreeNode): void => {
    if (treeDepth(tree) > MAX_TREE_DEPTH) throw new NestingTooDeepError();
  };
}

/** Image sources other than this site's paths become empty (and the image is dropped later). */
function urlTransform(url: string, key: string): string {
  if (key === 'src') return isSameOriginPath(url) ? url : '';
  return defaultUrlTransform(url);
}

/**
 * A message's Markdown as HTML: GFM, then raw HTML turned to text, sanitised with the tightened
 * schema, images and links checked, and code highlighted; React writes the markup, so every text
 * is escaped. Nothing in a message can add script, an event handler or a javascript: URL.
 * Runs in the render workers (render-worker.ts): its cost grows with what the message holds.
 */
export async function markdownToHtml(text: string): Promise<string> {
  if (deepestQuote(text) > MAX_TREE_DEPTH) throw new NestingTooDeepError();
  const element = await MarkdownAsync({
    children: text,
    remarkPlugins: [remarkGfm, remarkMath, remarkBoundNesting],
    // KaTeX after sanitising: its markup is ours; the formula's text reaches it as text.
    rehypePlugins: [rehypeRawAsText, [rehypeSanitize, SANITIZE_SCHEMA], rehypeTightenElements, [rehypeKatex, { throwOnError: false }], rehypeShiki, rehypeCodeFrame],
    urlTransform,
  });
  return renderToStaticMarkup(element);
}
