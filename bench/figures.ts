import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A figure the bench cannot measure fails the run, naming the figure and why (issue 32 item 9):
 * a figure left out, or a stand-in such as -1, passes any "≤" bar and hides that it was never taken.
 */
export class UnmeasuredFigureError extends Error {
  constructor(figures: string, why: string) {
    super(`bench: ${figures} cannot be measured: ${why}`);
    this.name = 'UnmeasuredFigureError';
  }
}

/** The server figures run against the production build: without one they fail, never skip. */
export function requireBuild(figures: string, root = process.cwd()): void {
  if (!existsSync(join(root, '.next', 'BUILD_ID'))) throw new UnmeasuredFigureError(figures, 'there is no production build (.next/BUILD_ID): run `npm run build` first');
}

/** A figure's value, or the run fails when there is none. */
export function measured(figure: string, value: number | null | undefined, why: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new UnmeasuredFigureError(figure, why);
  return value;
}

/** What one benchmark returned: at least one figure, each a finite number; else the run fails naming the benchmark. */
export function checkFigures(benchmark: string, figures: Record<string, unknown>): Record<string, number> {
  const names = Object.keys(figures);
  if (names.length === 0) throw new UnmeasuredFigureError(`the ${benchmark} figures`, 'the benchmark returned none');
  for (const name of names) measured(name, figures[name] as number, `the ${benchmark} benchmark returned ${JSON.stringify(figures[name])}`);
  return figures as Record<string, number>;
}
