import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * For a writer script's source: `say(line)` records a line durably before it returns. Not stdout:
 * a pipe the parent is slow to read makes process.stdout queue writes in the child, and a SIGKILL
 * then loses a `begin` whose operation already reached the disk.
 */
export const SAY_SOURCE = `
  import { openSync as openProgress, writeSync as writeProgress } from 'node:fs';
  const progressFd = openProgress(process.env.KILL_HARNESS_PROGRESS, 'a');
  const say = (line) => { writeProgress(progressFd, JSON.stringify(line) + '\\n'); if (line.ready) process.stdout.write('ready\\n'); };
`;

/** One line a writer says: `ready` once, then `begin` before and `ack` after each operation. */
export interface WriterLine<Op> {
  ready?: true;
  begin?: Op;
  ack?: Op;
  [extra: string]: unknown;
}

export interface KilledRun<Op> {
  acked: Op[];
  /** The operation begun and not acknowledged when the kill landed: it may or may not have happened. */
  inFlight: Op | null;
  /** The last acknowledged line, for writers that report more than the operation. */
  lastAck: WriterLine<Op> | null;
}

/** Run a writer script (with SAY_SOURCE in it) under tsx and SIGKILL it `delayMs` after it says it is ready. */
export function runAndKill<Op>(script: string, delayMs: number): Promise<KilledRun<Op>> {
  const progress = `${script}.progress`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KILL_HARNESS_PROGRESS: progress },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), delayMs));
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited with ${code}: ${stderr}`));
      resolve(readProgress<Op>(progress));
    });
  });
}

function readProgress<Op>(path: string): KilledRun<Op> {
  const acked: Op[] = [];
  let inFlight: Op | null = null;
  let lastAck: WriterLine<Op> | null = null;
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.pop(); // '' after the last line, or a line the kill cut short
  for (const text of lines) {
    const line = JSON.parse(text) as WriterLine<Op>;
    if (line.begin) inFlight = line.begin;
    if (line.ack) {
      acked.push(line.ack);
      inFlight = null;
      lastAck = line;
    }
  }
  return { acked, inFlight, lastAck };
}
