import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkFigures, measured, requireBuild, UnmeasuredFigureError } from '../bench/figures.js';

// Issue 32 item 9: a figure the bench cannot measure fails the run naming why, never a silent
// gap (`return {}`) or a stand-in (`move_freeze_ms_1k` was -1, which passes any "≤" bar).
describe('bench figures that cannot be measured fail loudly', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a missing value names the figure and why, where -1 used to stand in', () => {
    expect(() => measured('move_freeze_ms_1k', undefined, 'the move set no freeze time')).toThrow(
      new UnmeasuredFigureError('move_freeze_ms_1k', 'the move set no freeze time'),
    );
    expect(() => measured('x_ms', Number.NaN, 'no samples')).toThrow(/x_ms cannot be measured: no samples/);
    expect(measured('move_freeze_ms_1k', 0, 'unused')).toBe(0);
  });

  it('a server figure without the production build fails, it is not skipped', () => {
    const root = mkdtempSync(join(tmpdir(), 'bench-figures-'));
    dirs.push(root);
    expect(() => requireBuild('the fairness figures', root)).toThrow(/the fairness figures cannot be measured: there is no production build/);
    mkdirSync(join(root, '.next'));
    writeFileSync(join(root, '.next', 'BUILD_ID'), 'abc');
    expect(() => requireBuild('the fairness figures', root)).not.toThrow();
  });

  it('a benchmark that returns no figure, or one that is not a number, fails the run', () => {
    expect(() => checkFigures('fairness', {})).toThrow(/the fairness figures cannot be measured: the benchmark returned none/);
    expect(() => checkFigures('move', { move_freeze_ms_1k: null })).toThrow(/move_freeze_ms_1k cannot be measured: the move benchmark returned null/);
    expect(checkFigures('redact', { redact_ms_1mb_pem: 12 })).toEqual({ redact_ms_1mb_pem: 12 });
  });
});
