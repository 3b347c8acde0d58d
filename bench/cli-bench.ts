import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'cli', 'bin.mjs');
const SESSIONS = 200;
const RUNS = 15;

function cli(dataDir: string, ...args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, '--data', dataDir, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`entity-memory ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10;
}

/**
 * cli_command_ms: the median wall time of one `entity-memory sessions list` (the bundled CLI
 * from process start to exit, node's own start included) on a data directory of 200 sessions
 * that no server holds, so the CLI opens the directory itself. The first run (which may build
 * the bundle) is not counted.
 */
export async function benchCli(): Promise<{ cli_command_ms: number }> {
  const dataDir = scratchDir('op-bench-cli-');
  const created = JSON.parse(cli(dataDir, '--json', 'users', 'add', 'bench@cli.test', '--password', 'a long bench password', '--admin')) as { id: string };
  const store = await SessionStore.open({ stateDir: join(dataDir, 'users', created.id), workspaceRoot: join(dataDir, 'workspaces', created.id) });
  for (let n = 0; n < SESSIONS; n++) {
    await store.createSession({ id: `bench-${n}` });
    await store.appendMessage(`bench-${n}`, { role: 'user', content: `question number ${n}` });
  }
  await store.close();
  cli(dataDir, 'sessions', 'list');
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const out = cli(dataDir, 'sessions', 'list', '--limit', '50');
    samples.push(performance.now() - start);
    if (out.split('\n').filter(Boolean).length !== 51) throw new Error('sessions list did not print a header and 50 rows');
  }
  return { cli_command_ms: median(samples) };
}
