import type { Element, ElementContent, Root } from 'hast';

function languageOf(pre: Element): string | null {
  const marked = pre.properties['dataLanguage'];
  if (typeof marked === 'string' && marked !== '') return marked;
  const code = pre.children.find((child): child is Element => child.type === 'element' && child.tagName === 'code');
  const className = code?.properties['className'];
  const classes = Array.isArray(className) ? className.map(String) : [];
  return classes.find((name) => name.startsWith('language-'))?.slice('language-'.length) || null;
}

/**
 * Every code block in a frame with its language and a Copy button (after sanitising: the frame is
 * ours). The button has no handler here: the page's Markdown body copies the block's text.
 */
export function rehypeCodeFrame() {
  return (tree: Root): void => {
    const visit = (parent: Root | Element) => {
      parent.children.forEach((child, index) => {
        if (child.type !== 'element') return;
        if (child.tagName !== 'pre') return visit(child);
        const language = languageOf(child);
        const header: ElementContent = {
          type: 'element',
          tagName: 'div',
          properties: { dataCodeHeader: '' },
          children: [
            { type: 'element', tagName: 'span', properties: {}, children: [{ type: 'text', value: language ?? 'text' }] },
            { type: 'element', tagName: 'button', properties: { type: 'button', dataCopyCode: '', ariaLabel: `Copy ${language ?? 'text'} code` }, children: [{ type: 'text', value: 'Copy' }] },
          ],
        };
        parent.children[index] = { type: 'element', tagName: 'div', properties: { dataCodeBlock: '' }, children: [header, child] };
      });
    };
    visit(tree);
  };
}
