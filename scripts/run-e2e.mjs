#!/usr/bin/env node
// Playwright on one scratch directory for the whole run (the server's data and every test's own),
// removed when the run passes and kept, by name, when it fails: a run leaves ~1 GB otherwise.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const scratch = mkdtempSync(join(tmpdir(), 'em-e2e-run-'));
const child = spawn(join('node_modules', '.bin', 'playwright'), ['test', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, E2E_SCRATCH_DIR: scratch },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (code === 0) rmSync(scratch, { recursive: true, force: true });
  else console.error(`e2e: the run's data directories are kept in ${scratch}`);
  process.exit(code ?? (signal ? 1 : 0));
});
