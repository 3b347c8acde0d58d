export { alignBranches, type AlignedPair } from './align.js';
export { compareBranches, type BranchComparison, type CompareRow } from './compare-branches.js';
export { wordDiff, WORD_DIFF_MAX_CHARS, type WordChange } from './word-diff.js';
