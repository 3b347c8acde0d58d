import type { Element, ElementContent, Root } from 'hast';
import { highlighterFor, languageOf, THEMES } from './highlighter';

/** Longer code is shown plain: highlighting is for reading, and its cost grows with the text. */
export const MAX_HIGHLIGHT_CHARS = 20_000;

/**
 * Longer lines stay plain inside a highlighted block: a grammar's cost on one line can grow
 * faster than its length, and a line this long is data (minified code, a dump), not for reading.
 */
export const MAX_HIGHLIGHT_LINE_CHARS = 1_000;

/**
 * Highlighting time one message may spend: once used up, its remaining blocks stay plain, so a
 * message of many code blocks still renders (formatted) within the render deadline.
 */
export const HIGHLIGHT_BUDGET_MS = 600;

function textOf(node: ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element') return node.children.map(textOf).join('');
  return '';
}

function fencedCode(node: Element): { code: string; language: string } | null {
  if (node.tagName !== 'pre' || node.children.length !== 1) return null;
  const code = node.children[0]!;
  if (code.type !== 'element' || code.tagName !== 'code') return null;
  const className = code.properties['className'];
  const classes = Array.isArray(className) ? className.map(String) : [];
  const fence = classes.find((name) => name.startsWith('language-'))?.slice('language-'.length);
  const language = fence ? languageOf(fence) : null;
  if (!language) return null;
  const text = textOf(code).replace(/\n$/, '');
  return text.length > MAX_HIGHLIGHT_CHARS ? null : { code: text, language };
}

/**
 * Highlights fenced code with shiki, after sanitising (what shiki adds is ours, not the message's).
 * Dual themes with no default colour: every token carries `--shiki-light` and `--shiki-dark`, and
 * CSS picks one by the page's theme, so switching themes needs no new render.
 */
export function rehypeShiki() {
  return async (tree: Root): Promise<void> => {
    const blocks: Array<{ parent: Root | Element; index: number; code: string; language: string }> = [];
    const visit = (parent: Root | Element) => {
      parent.children.forEach((child, index) => {
        if (child.type !== 'element') return;
        const found = fencedCode(child);
        if (found) blocks.push({ parent, index, ...found });
        else visit(child);
      });
    };
    visit(tree);
    let spentMs = 0;
    for (const block of blocks) {
      if (spentMs > HIGHLIGHT_BUDGET_MS) break;
      const core = await highlighterFor(block.language);
      const started = performance.now();
      const highlighted = core.codeToHast(block.code, {
        lang: block.language,
        themes: THEMES,
        defaultColor: false,
        tokenizeMaxLineLength: MAX_HIGHLIGHT_LINE_CHARS,
      });
      spentMs += performance.now() - started;
      const pre = highlighted.children[0];
      if (pre?.type === 'element') {
        pre.properties['dataLanguage'] = block.language;
        block.parent.children[block.index] = pre;
      }
    }
  };
}
