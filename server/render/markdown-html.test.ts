import { describe, expect, it } from 'vitest';
import { deepestQuote, markdownToHtml as html, MAX_TREE_DEPTH, NestingTooDeepError, treeDepth } from './markdown-html';
import { HIGHLIGHT_BUDGET_MS, MAX_HIGHLIGHT_LINE_CHARS } from './rehype-shiki';

describe('server-side Markdown', () => {
  it('renders HTML written in a message as text, never as elements', async () => {
    const out = await html('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\nand <b onclick="x()">bold</b>');
    // Every real tag starts with "<" (text has &lt;): no script or image tag, no handler attribute.
    expect(out).not.toMatch(/<(script|img|b)\b/i);
    expect(out).not.toMatch(/<[^>]*\son\w+=/i);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('strips javascript:, data: and other schemes from links, keeps http(s) and mailto', async () => {
    const out = await html('[a](javascript:alert(1)) [b](data:text/html,<b>x</b>) [c](vbscript:x) [d](https://example.org/x) [e](mailto:a@b.c) [f](/sessions/x)');
    expect(out).not.toMatch(/javascript:|data:|vbscript:/i);
    expect(out).toContain('<a href="https://example.org/x" target="_blank" rel="noopener noreferrer nofollow">d</a>');
    expect(out).toContain('<a href="mailto:a@b.c">e</a>');
    expect(out).toContain('<a href="/sessions/x">f</a>');
  });

  it('keeps images from this site only', async () => {
    const out = await html('![local](/api/attachments/s/cat.png) ![remote](https://tracker.example/p.gif) ![proto](//evil.example/p.gif) ![data](data:image/png;base64,AAAA)');
    expect(out).toContain('<img src="/api/attachments/s/cat.png" alt="local"/>');
    expect(out.match(/<img/g)).toHaveLength(1);
  });

  it('highlights fenced code with both themes as CSS variables, other fences stay plain', async () => {
    const out = await html('```ts\nconst answer: number = 42;\n```\n\n```brainfuck\n+++.\n```\n\n`inline`');
    expect(out).toMatch(/<pre class="shiki shiki-themes github-light github-dark"[^>]*data-language="typescript"/);
    expect(out).toMatch(/--shiki-light:#[0-9A-Fa-f]{6};--shiki-dark:#[0-9A-Fa-f]{6}/);
    // Each token keeps its own colours: the keyword and the name differ in both themes.
    expect(out).toContain('<span style="--shiki-light:#D73A49;--shiki-dark:#F97583">const</span>');
    expect(out).toContain('<span style="--shiki-light:#005CC5;--shiki-dark:#79B8FF"> answer</span>');
    expect(out).toContain('<pre><code class="language-brainfuck">+++.\n</code></pre>');
    expect(out).toContain('<code>inline</code>');
  });

  it('renders GitHub Markdown: tables, task lists, strikethrough', async () => {
    const out = await html('| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n~~gone~~');
    expect(out).toContain('<table>');
    expect(out).toContain('<input type="checkbox" disabled="" checked=""/>');
    expect(out).toContain('<del>gone</del>');
  });

  it('refuses Markdown nested deeper than the bound before anything recurses over it', async () => {
    // 3,000 nested quotes overflowed the stack in mdast-util-to-hast: now a clear refusal.
    await expect(html(`${'>'.repeat(3_000)} deep`)).rejects.toBeInstanceOf(NestingTooDeepError);
    // 40 quotes (root, 40 blockquotes, paragraph, text) are within the bound and render.
    const out = await html(`${'>'.repeat(40)} fine`);
    expect(out.match(/<blockquote>/g)).toHaveLength(40);
    expect(out).toContain('fine');
  });

  it('bounds nesting that is not quotes alone: lists in quotes in lists', async () => {
    // Each level is a list, its item and a quote (3 tree levels), so 40 levels exceed the bound.
    await expect(html(`${'- > '.repeat(40)}x`)).rejects.toBeInstanceOf(NestingTooDeepError);
    expect(await html(`${'- > '.repeat(10)}x`)).toContain('<li>\n<blockquote>\n<ul>');
  });

  it('counts the quote depth a line opens with, spaces between the markers allowed', () => {
    expect(deepestQuote('plain\n> one\n> > two\n  >>> three > not counted\ntext > no')).toBe(3);
    expect(deepestQuote('a > b >> c')).toBe(0);
    expect(deepestQuote('')).toBe(0);
  });

  it('measures depth without recursing, for trees far deeper than the stack', () => {
    type Node = { children?: Node[] };
    const root: Node = {};
    let node = root;
    for (let i = 1; i < 200_000; i++) node = (node.children = [{}])[0]!;
    expect(treeDepth(root)).toBe(200_000);
    expect(treeDepth({ children: [{}, { children: [{}] }] })).toBe(3);
    expect(MAX_TREE_DEPTH).toBeLessThan(1_000);
  });

  it('leaves lines longer than the limit plain inside a highlighted block', async () => {
    const long = `int x = ${'1 + '.repeat(MAX_HIGHLIGHT_LINE_CHARS / 4)}1;`;
    const out = await html(`\`\`\`cpp\nint y = 2;\n${long}\n\`\`\``);
    expect(out).toMatch(/<pre class="shiki[^"]*"[^>]*data-language="cpp"/);
    // The short line is tokenised (int is a keyword), the long one is one plain token.
    expect(out).toMatch(/<span style="--shiki-light:#D73A49;--shiki-dark:#F97583">int<\/span>/);
    expect(out).toContain(`>${long.replace(/ /g, ' ')}</span>`);
  });

  it('stops highlighting once the budget is spent: later blocks stay plain code', async () => {
    // Each block costs a little; enough of them exceed the budget, and the rest are left as they were.
    const block = `\`\`\`cpp\n${'int main() { return compute(1, 2) + other(3); }\n'.repeat(150)}\`\`\``;
    const count = 40;
    const out = await html(Array.from({ length: count }, () => block).join('\n\n'));
    const highlighted = out.match(/data-language="cpp"/g)?.length ?? 0;
    const plain = out.match(/<pre><code class="language-cpp">/g)?.length ?? 0;
    expect(highlighted + plain).toBe(count);
    expect(highlighted).toBeGreaterThan(0);
    expect(plain).toBeGreaterThan(0);
    expect(HIGHLIGHT_BUDGET_MS).toBeGreaterThan(0);
  });
});

describe('code frames and formulas', () => {
  it('puts each code block in a frame with its language and a Copy button', async () => {
    const out = await html('```ts\nconst a = 1;\n```\n\n```brainfuck\n+++.\n```\n\n```\nplain\n```');
    expect(out).toMatch(/<div data-code-block=""><div data-code-header=""><span>typescript<\/span><button type="button" data-copy-code="" aria-label="Copy typescript code">Copy<\/button><\/div><pre class="shiki/);
    expect(out).toContain('<span>brainfuck</span><button type="button" data-copy-code="" aria-label="Copy brainfuck code">Copy</button></div><pre><code class="language-brainfuck">');
    expect(out).toContain('<span>text</span><button type="button" data-copy-code="" aria-label="Copy text code">Copy</button></div><pre><code>plain');
  });

  it('renders $inline$ and $$display$$ math with KaTeX, and never runs what a formula says', async () => {
    const out = await html('Euler: $e^{i\\pi} + 1 = 0$\n\n$$\n\\int_0^1 x\\,dx\n$$\n\n$\\href{javascript:alert(1)}{x}$ and $<img src=x onerror=alert(1)>$');
    expect(out).toContain('<span class="katex">');
    expect(out).toContain('<span class="katex-display">');
    expect(out).toContain('<annotation encoding="application/x-tex">e^{i\\pi} + 1 = 0</annotation>');
    // \href is refused (KaTeX's trust is off): shown in red as written, never a link.
    expect(out).toContain('<span class="mord" style="color:#cc0000">\\href</span>');
    expect(out).not.toMatch(/<a\b|href=/i);
    expect(out).not.toMatch(/<img/i);
    expect(out).not.toMatch(/<[^>]*\son\w+=/i);
  });
});
