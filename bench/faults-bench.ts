/**
 * Issue 21's full runs: the crash test with 50 SIGKILLs (crash_kills, crash_lost, crash_violations) and the
 * hostile-input fuzzer with 10,000 cases per property against the e2e server (fuzz_cases,
 * fuzz_5xx). `.ci/run` runs both shortened. Needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  if (!existsSync(reportFile)) throw new Error(`the fuzzer reported nothing (exit ${child.status})`);
  const lines = readFileSync(reportFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { cases: number; fiveXX: number });
  return { fuzz_cases: lines.reduce((sum, line) => sum + line.cases, 0), fuzz_5xx: lines.reduce((sum, line) => sum + line.fiveXX, 0) };
}
