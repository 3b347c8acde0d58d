#!/usr/bin/env node
// Playwright on one scratch directory per run (the server's data and every test's own), removed
// when the run passes and kept, by name, when it fails: a run leaves ~1 GB otherwise.
//
// With no arguments (the whole suite, as `npm test` and CI run it) the API project and the browser
// projects run at the same time, each against its own server, model server and data directory (the
// browser run on E2E_PORT + 500): they share nothing, and the API tests spend most of their time
// waiting on the server while the browser tests wait on Chromium, so two cores serve both. With
// arguments (spec files, --project, -c …) it is one Playwright run, as before.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const BROWSER_RUN_PORT_OFFSET = 500;
const basePort = Number(process.env.E2E_PORT ?? 3100);
const args = process.argv.slice(2);

const runs =
  args.length > 0
    ? [{ label: '', args, env: {} }]
    : [
        { label: 'api', args: ['--project', 'api'], env: { E2E_OUTPUT_DIR: 'test-results-api' } },
        {
          label: 'ui',
          args: ['--project', 'e2e', '--project', 'runtimes'],
          env: { E2E_PORT: String(basePort + BROWSER_RUN_PORT_OFFSET) },
        },
      ];

const children = [];
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => children.forEach((child) => child.kill(signal)));

/** One Playwright run; resolves to its exit code. */
function runPlaywright({ label, args: runArgs, env }) {
  const scratch = mkdtempSync(join(tmpdir(), 'em-e2e-run-'));
  const child = spawn(join('node_modules', '.bin', 'playwright'), ['test', ...runArgs], {
    stdio: label ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: { ...process.env, ...env, E2E_SCRATCH_DIR: scratch },
  });
  children.push(child);
  // Two runs print at once: each line says which run it belongs to.
  if (label) {
    for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]]) {
      createInterface({ input: stream }).on('line', (line) => out.write(`${label} | ${line}\n`));
    }
  }
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      if (status === 0) rmSync(scratch, { recursive: true, force: true });
      else console.error(`e2e${label ? ` (${label})` : ''}: the run's data directories are kept in ${scratch}`);
      resolve(status);
    });
  });
}

const codes = await Promise.all(runs.map(runPlaywright));
process.exit(codes.find((code) => code !== 0) ?? 0);
