import { describe, expect, it } from 'vitest';
import { fuzzFigures } from '../bench/faults-bench.js';
import { FUZZ_PROPERTIES, type FuzzProperty, type FuzzReportLine } from '../e2e/fixtures/fuzz-properties.js';

const done = (property: FuzzProperty, cases: number, extra: Partial<Extract<FuzzReportLine, { cases: number }>> = {}): FuzzReportLine[] => [
  { property, started: true },
  { property, cases, expected: 100, fiveXX: 0, failed: false, message: null, ...extra },
];
/** Every property but the two the tests vary, each having run its 100 cases. */
const rest = (): FuzzReportLine[] => FUZZ_PROPERTIES.filter((property) => property !== 'procedures' && property !== 'routes').flatMap((property) => done(property, 100));
const restCases = (FUZZ_PROPERTIES.length - 2) * 100;

describe('the fuzz bench figures (bench/faults-bench.ts)', () => {
  it('sum the cases of every property when each ran all of them', () => {
    expect(fuzzFigures([...done('procedures', 100), ...done('routes', 100), ...rest()], 0)).toEqual({ fuzz_cases: 200 + restCases, fuzz_5xx: 0 });
  });

  it('report 5xx answers as a figure (the spec fails on them, every case still ran)', () => {
    expect(fuzzFigures([...done('procedures', 100, { fiveXX: 2 }), ...done('routes', 100), ...rest()], 1)).toEqual({ fuzz_cases: 200 + restCases, fuzz_5xx: 2 });
  });

  it('fail loudly on a property that hung: started, never finished (it used to vanish from fuzz_cases)', () => {
    expect(() => fuzzFigures([...done('procedures', 100), { property: 'routes', started: true }, ...rest()], 1)).toThrow(/routes: started, never finished/);
  });

  it('fail loudly with the counterexample of a failed property, and on one that never started', () => {
    const failed = done('routes', 37, { failed: true, message: 'Property failed after 37 tests\nCounterexample: [{"what":"events"}]' });
    expect(() => fuzzFigures([...done('procedures', 100), ...failed, ...rest()], 1)).toThrow(/routes: failed after 37 cases: .*\nCounterexample: \[\{"what":"events"\}\]/);
    expect(() => fuzzFigures([...done('procedures', 100), ...rest()], 1)).toThrow(/routes: never started/);
  });

  it('fail on a property that stopped short, and on a failed spec with nothing else to show', () => {
    expect(() => fuzzFigures([...done('procedures', 99), ...done('routes', 100), ...rest()], 0)).toThrow(/procedures: 99 of 100 cases ran/);
    expect(() => fuzzFigures([...done('procedures', 100), ...done('routes', 100), ...rest()], 1)).toThrow(/exited with 1/);
  });
});
