/**
 * Bisect over an ordered list (DESIGN §14): which entry to run next, and the first bad one.
 * Positions are indexes into the list; -1 is the code before its first entry. Between the last
 * position known good and the first known bad the first bad entry lies; the bad end is run first
 * (it must fail, or there is nothing to find), then the interval is halved: at most
 * ⌈log2 n⌉ + 1 runs for n = bad − good. The good end is taken on trust, as `git bisect` does.
 */

export type Verdict = 'good' | 'bad';

export interface BisectState {
  /** the last position known (or taken to be) good; -1: the code before the first entry */
  readonly good: number;
  /** the first position known bad, or the bad end until its run */
  readonly bad: number;
  /** whether the bad end has been run and failed */
  readonly badChecked: boolean;
  /** the bad end passed: nothing to bisect */
  readonly badPassed: boolean;
  readonly runs: number;
}

export type BisectStep =
  | { kind: 'run'; position: number; checksBadEnd: boolean }
  | { kind: 'found'; position: number }
  | { kind: 'bad-end-passes'; position: number };

export function startBisect(good: number, bad: number): BisectState {
  if (!Number.isSafeInteger(good) || !Number.isSafeInteger(bad) || good < -1 || bad <= good) {
    throw new RangeError(`bisect needs good < bad (good ${good}, bad ${bad})`);
  }
  return { good, bad, badChecked: false, badPassed: false, runs: 0 };
}

export function nextStep(state: BisectState): BisectStep {
  if (state.badPassed) return { kind: 'bad-end-passes', position: state.bad };
  if (!state.badChecked) return { kind: 'run', position: state.bad, checksBadEnd: true };
  if (state.bad - state.good <= 1) return { kind: 'found', position: state.bad };
  return { kind: 'run', position: Math.floor((state.good + state.bad) / 2), checksBadEnd: false };
}

/** The state after the run `nextStep` asked for answered `verdict`. */
export function afterRun(state: BisectState, verdict: Verdict): BisectState {
  const step = nextStep(state);
  if (step.kind !== 'run') throw new Error(`bisect is over (${step.kind}): nothing was to run`);
  const runs = state.runs + 1;
  if (step.checksBadEnd) return verdict === 'bad' ? { ...state, badChecked: true, runs } : { ...state, badPassed: true, runs };
  return verdict === 'good' ? { ...state, good: step.position, runs } : { ...state, bad: step.position, runs };
}

/** ⌈log2 m⌉ for m ≥ 1, in integers (no floating point at powers of two). */
function ceilLog2(m: number): number {
  let bits = 0;
  while (2 ** bits < m) bits++;
  return bits;
}

/** The most runs a bisect between `good` and `bad` can take: ⌈log2 (bad − good)⌉ + 1. */
export function maxRuns(good: number, bad: number): number {
  return ceilLog2(bad - good) + 1;
}

/** An upper bound of the runs still to come: the bad end's check, then one per halving. */
export function runsLeft(state: BisectState): number {
  if (state.badPassed) return 0;
  return ceilLog2(state.bad - state.good) + (state.badChecked ? 0 : 1);
}
