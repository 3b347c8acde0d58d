import type { BranchMessage, ComparePaths } from '../store/index.js';
import { alignBranches } from './align.js';
import { wordDiff, type WordChange } from './word-diff.js';

/** A row of the compare view: a message of each side (or null), and their word changes when both are there. */
export interface CompareRow {
  a: BranchMessage | null;
  b: BranchMessage | null;
  /** a's text to b's: `removed` runs are a's only, `added` b's only; null when one side is empty */
  words: WordChange[] | null;
}

export interface BranchComparison {
  ancestor: ComparePaths['ancestor'];
  rows: CompareRow[];
  project: ComparePaths['project'];
}

/** session.compare's answer from the two paths the store read: aligned rows with their word differences. */
export function compareBranches(paths: ComparePaths): BranchComparison {
  const rows = alignBranches(paths.a, paths.b).map(({ a, b }): CompareRow => ({ a, b, words: a && b ? wordDiff(a.content, b.content) : null }));
  return { ancestor: paths.ancestor, rows, project: paths.project };
}
