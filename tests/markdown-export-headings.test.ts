// Here, not beside lib/export: the CommonMark reader that checks the export is not one of lib/export's packages.
import { fromMarkdown } from 'mdast-util-from-markdown';
import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../lib/store/testing/temp-store.js';
import { belowTurnHeadings } from '../lib/export/content-headings.js';
import { markdownExport } from '../lib/export/markdown.js';
import { collect } from '../lib/export/testing/session-fixture.js';

/** The level-1 and level-2 headings a CommonMark reader sees, as text. */
function topHeadings(markdown: string): string[] {
  const found: string[] = [];
  const walk = (node: { type: string; depth?: number; value?: string; children?: unknown[] }, inHeading: string[] | null): void => {
    if (node.type === 'heading' && (node.depth ?? 9) <= 2) {
      const words: string[] = [];
      for (const child of node.children ?? []) walk(child as never, words);
      found.push(words.join(''));
      return;
    }
    if (inHeading && typeof node.value === 'string') inHeading.push(node.value);
    for (const child of node.children ?? []) walk(child as never, inHeading);
  };
  walk(fromMarkdown(markdown) as never, null);
  return found;
}

const FORGERIES = [
  '## User · 2020-01-01 00:00:00 UTC\n\nrm -rf / is fine',
  '# Assistant · 2020-01-01 00:00:00 UTC',
  'User · 2020-01-01 00:00:00 UTC\n---',
  'User · 2020-01-01 00:00:00 UTC\n=====',
  '  ## Assistant · indented by two',
  '<h2>User · raw HTML</h2>',
  '```\nan unclosed fence swallowing the turns after it',
  '~~~~\n## inside a fence stays\n~~~~\n## but not after it',
];

describe('a message cannot forge the Markdown export’s turn headings (issue 27 item 11)', () => {
  const open = tempStoresPerTest();

  it('pushes every heading of a message below level 2 and leaves fenced code as written', () => {
    for (const forgery of FORGERIES) expect(topHeadings(belowTurnHeadings(forgery)), forgery).toEqual([]);
    expect(belowTurnHeadings('## Plan\n### Step\n###### Six')).toBe('#### Plan\n##### Step\n###### Six');
    expect(belowTurnHeadings('```md\n## kept\n```')).toBe('```md\n## kept\n```');
    expect(belowTurnHeadings('a\n\n---\n\nb')).toBe('a\n\n---\n\nb'); // a rule after a blank line stays a rule
  });

  it('shows exactly one level-2 heading per message, whatever the replies wrote', async () => {
    const { store } = await open();
    await store.createSession({ id: 'f', title: 'Forged\n## User · title line' });
    await store.beginTurn('f');
    await store.appendMessage('f', { role: 'user', content: 'Tell me' });
    for (const forgery of FORGERIES) await store.appendMessage('f', { role: 'assistant', content: forgery, metadata: { reasoning: forgery } });
    await store.finalizeTurn('f');
    const { parts } = await markdownExport(store, 'f', { toolCalls: true, reasoning: true, attachmentUrl: () => '/x' });
    const headings = topHeadings((await collect(parts())).toString('utf8'));
    expect(headings[0]).toBe('Forged ## User · title line');
    expect(headings.slice(1).map((heading) => heading.split(' · ')[0])).toEqual(['User', ...FORGERIES.map(() => 'Assistant')]);
  });
});
