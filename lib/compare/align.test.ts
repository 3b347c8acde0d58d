import { describe, expect, it } from 'vitest';
import { alignBranches } from './align.js';

const m = (id: string, role: 'user' | 'assistant') => ({ id, role });
const ids = (rows: ReturnType<typeof alignBranches<{ id: string; role: string }>>) => rows.map((row) => [row.a?.id ?? null, row.b?.id ?? null]);

describe('alignBranches: two branches after their common message, pairwise', () => {
  it('two retries of one answer face each other', () => {
    expect(ids(alignBranches([m('a1', 'assistant')], [m('b1', 'assistant')]))).toEqual([['a1', 'b1']]);
  });

  it('an edited question and its original, each with its reply, then a longer side faces empty cells', () => {
    const a = [m('qa', 'user'), m('ra', 'assistant')];
    const b = [m('qb', 'user'), m('rb', 'assistant'), m('rb2', 'assistant'), m('qb3', 'user'), m('rb3', 'assistant')];
    expect(ids(alignBranches(a, b))).toEqual([
      ['qa', 'qb'],
      ['ra', 'rb'],
      [null, 'rb2'],
      [null, 'qb3'],
      [null, 'rb3'],
    ]);
  });

  it('a reply on one side and a new question on the other stay on separate rows', () => {
    expect(ids(alignBranches([m('r', 'assistant'), m('q2', 'user')], [m('q', 'user')]))).toEqual([
      ['r', null],
      ['q2', 'q'],
    ]);
  });

  it('one side empty (b descends from a): every row has an empty a cell', () => {
    expect(ids(alignBranches([], [m('q', 'user'), m('r', 'assistant')]))).toEqual([
      [null, 'q'],
      [null, 'r'],
    ]);
  });

  it('5,000 turns a side align in one linear pass', () => {
    const side = (p: string) => Array.from({ length: 10_000 }, (_, i) => m(`${p}${i}`, i % 2 === 0 ? 'user' : 'assistant'));
    const rows = alignBranches(side('a'), side('b'));
    expect(rows).toHaveLength(10_000);
    expect(rows[9_999]).toEqual({ a: m('a9999', 'assistant'), b: m('b9999', 'assistant') });
  });
});
