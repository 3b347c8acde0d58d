/** scripts/build-if-stale.mjs, for the tests. */
export function buildState(dir?: string): 'missing' | 'stale' | 'fresh';
export function buildIfStale(dir?: string): number;
