import 'server-only';
import type { Element, ElementContent, Root } from 'hast';
import { highlighterFor, languageOf, THEMES } from './highlighter';

/** Longer code is shown plain: highlighting is for reading, and its cost grows with the text. */
const MAX_HIGHLIGHT_CHARS = 20_000;

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
    const jobs: Promise<void>[] = [];
    const visit = (parent: Root | Element) => {
      parent.children.forEach((child, index) => {
        if (child.type !== 'element') return;
        const found = fencedCode(child);
        if (!found) {
          visit(child);
          return;
        }
        jobs.push(
          highlighterFor(found.language).then((core) => {
            const highlighted = core.codeToHast(found.code, { lang: found.language, themes: THEMES, defaultColor: false });
            const pre = highlighted.children[0];
            if (pre?.type === 'element') {
              pre.properties['dataLanguage'] = found.language;
              parent.children[index] = pre;
            }
          }),
        );
      });
    };
    visit(tree);
    await Promise.all(jobs);
  };
}
