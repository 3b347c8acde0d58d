/**
 * Issue 21's full runs: the crash test with 50 SIGKILLs (crash_kills, crash_lost, crash_violations) and the
 * hostile-input fuzzer with 10,000 cases per property against the e2e server (fuzz_cases,
 * fuzz_5xx). `.ci/run` runs both shortened. Needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FUZZ_PROPERTIES, type FuzzReportLine } from '../e2e/fixtures/fuzz-properties.js';
import { crashSummary, runCrashTest } from './crash/crash-test.js';
import { scratchDir } from './scratch.js';

export async function benchCrash(): Promise<Record<string, number>> {
  const figures = await runCrashTest({ kills: 50, port: Number(process.env['CRASH_PORT'] ?? 3290), seed: 1, scratch: scratchDir('em-bench-crash-') });
  for (const problem of figures.problems) process.stderr.write(`crash: ${problem}\n`);
  process.stderr.write(`${crashSummary(figures)}\n`);
  // Two figures: acknowledged work gone (a session, node, commit, title, archived flag) and a broken
  // invariant (registry ≠ meta.json, git fsck, a half session, a 5xx); one sum hid which it was.
  return { crash_kills: figures.kills, crash_lost: figures.lost, crash_violations: figures.violations };
}

export async function benchFuzz(): Promise<Record<string, number>> {
  const reportFile = join(scratchDir('em-bench-fuzz-'), 'fuzz.jsonl');
  const child = spawnSync(process.execPath, ['scripts/run-e2e.mjs', 'e2e/api/fuzz.spec.ts'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, FUZZ_CASES: '10000', FUZZ_REPORT: reportFile, E2E_PORT: process.env['FUZZ_PORT'] ?? '3280' },
  });
  const lines = existsSync(reportFile) ? readFileSync(reportFile, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as FuzzReportLine) : [];
  return fuzzFigures(lines, child.status);
}

/**
 * The fuzzer's figures, or an error naming every property that did not run all its cases: one
 * that hung past the test's timeout (started, never finished), failed (its counterexample),
 * stopped short, or never started. Summing whatever lines exist would drop such a property
 * from fuzz_cases without a word.
 */
export function fuzzFigures(lines: readonly FuzzReportLine[], exitStatus: number | null): Record<string, number> {
  const problems: string[] = [];
  let cases = 0;
  let fiveXX = 0;
  for (const property of FUZZ_PROPERTIES) {
    const mine = lines.filter((line) => line.property === property);
    const end = mine.find((line) => !('started' in line));
    if (!end || 'started' in end) {
      problems.push(mine.length > 0 ? `${property}: started, never finished (a hang or the test's timeout)` : `${property}: never started`);
      continue;
    }
    cases += end.cases;
    fiveXX += end.fiveXX;
    if (end.failed) problems.push(`${property}: failed after ${end.cases} cases: ${end.message ?? ''}`);
    else if (end.cases !== end.expected) problems.push(`${property}: ${end.cases} of ${end.expected} cases ran`);
  }
  // fuzz_5xx is a figure when every case ran; any other failure of the spec is the bench's failure.
  if (problems.length === 0 && exitStatus !== 0 && fiveXX === 0) problems.push(`the fuzz spec exited with ${exitStatus}`);
  if (problems.length > 0) throw new Error(`fuzzer: ${problems.join('\n')}`);
  return { fuzz_cases: cases, fuzz_5xx: fiveXX };
}
