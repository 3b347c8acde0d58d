import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterRun, maxRuns, nextStep, runsLeft, startBisect, type BisectState, type Verdict } from './bisect-plan.js';

/** Runs a bisect to its end against `verdictAt`; the positions run, in order, and how it ended. */
function bisect(good: number, bad: number, verdictAt: (position: number) => Verdict) {
  let state: BisectState = startBisect(good, bad);
  const probes: number[] = [];
  const bounds: number[] = [];
  for (;;) {
    const step = nextStep(state);
    if (step.kind !== 'run') return { step, probes, state, bounds };
    bounds.push(state.runs + runsLeft(state));
    probes.push(step.position);
    state = afterRun(state, verdictAt(step.position));
  }
}

const firstBadAt = (first: number) => (position: number): Verdict => (position >= first ? 'bad' : 'good');

describe('the bisect plan', () => {
  it('twelve turns, the seventh (position 6) breaks: the end, then positions 5, 8, 6; four runs', () => {
    const { step, probes } = bisect(-1, 11, firstBadAt(6));
    expect(step).toEqual({ kind: 'found', position: 6 });
    expect(probes).toEqual([11, 5, 8, 6]);
  });

  it.each([
    [1, 1],
    [2, 2],
    [3, 3],
    [4, 3],
    [5, 4],
    [8, 4],
    [12, 5],
    [16, 5],
    [17, 6],
    [1024, 11],
  ])('%i entries: at most %i runs', (n, runs) => {
    expect(maxRuns(-1, n - 1)).toBe(runs);
    const worst = Math.max(...Array.from({ length: n }, (_, first) => bisect(-1, n - 1, firstBadAt(first)).probes.length));
    expect(worst).toBe(runs);
  });

  it('a bad end that passes stops after its one run', () => {
    const { step, probes } = bisect(-1, 11, () => 'good');
    expect(step).toEqual({ kind: 'bad-end-passes', position: 11 });
    expect(probes).toEqual([11]);
  });

  it('refuses a range that is empty or backwards, and a run after the end', () => {
    expect(() => startBisect(3, 3)).toThrow(RangeError);
    expect(() => startBisect(-2, 3)).toThrow(RangeError);
    const done = bisect(-1, 0, firstBadAt(0)).state;
    expect(nextStep(done)).toEqual({ kind: 'found', position: 0 });
    expect(() => afterRun(done, 'bad')).toThrow(/over/);
  });

  it('names the first bad entry in at most ⌈log2 n⌉ + 1 runs for any n, range and first bad entry', () => {
    const cases = fc
      .record({ good: fc.integer({ min: -1, max: 500 }), length: fc.integer({ min: 1, max: 5000 }), offset: fc.nat() })
      .map(({ good, length, offset }) => ({ good, bad: good + length, first: good + 1 + (offset % length) }));
    fc.assert(
      fc.property(cases, ({ good, bad, first }) => {
        const { step, probes, bounds } = bisect(good, bad, firstBadAt(first));
        expect(step).toEqual({ kind: 'found', position: first });
        expect(probes.length).toBeLessThanOrEqual(Math.ceil(Math.log2(bad - good)) + 1);
        expect(probes.length).toBeLessThanOrEqual(maxRuns(good, bad));
        // The progress total ("step k/N") never grows and is never passed.
        for (let i = 1; i < bounds.length; i++) expect(bounds[i]).toBeLessThanOrEqual(bounds[i - 1]!);
        expect(probes.length).toBeLessThanOrEqual(bounds[0]!);
        expect(new Set(probes).size).toBe(probes.length);
        expect(probes.every((position) => position > good && position <= bad)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('whatever the verdicts, the answer is a bad entry right after a good one (or the trusted good end)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.func(fc.constantFrom<Verdict>('good', 'bad')), (n, verdictOf) => {
        const seen = new Map<number, Verdict>();
        const verdictAt = (position: number): Verdict => {
          const verdict = position === n - 1 ? 'bad' : verdictOf(position);
          seen.set(position, verdict);
          return verdict;
        };
        const { step, probes } = bisect(-1, n - 1, verdictAt);
        expect(step.kind).toBe('found');
        expect(seen.get(step.position)).toBe('bad');
        if (step.position > 0) expect(seen.get(step.position - 1)).toBe('good');
        expect(probes.length).toBeLessThanOrEqual(maxRuns(-1, n - 1));
      }),
      { numRuns: 300 },
    );
  });
});
