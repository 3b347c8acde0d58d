import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-store.js';
import { readRegistryOnDisk } from '../testing/registry-on-disk.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const KILLS = 8;

/** A registry writer whose every compaction runs in the worker (log bound 1 KB), acknowledging each durable change. */
const WRITER = (sessionsDir: string, cycle: number): string => `
  import { existsSync } from 'node:fs';
  import { join } from 'node:path';
  import { Registry } from ${JSON.stringify(join(ROOT, 'lib/store/registry/registry.ts'))};
  import { RegistryWriter } from ${JSON.stringify(join(ROOT, 'lib/store/registry/index-file.ts'))};
  import { listSegments } from ${JSON.stringify(join(ROOT, 'lib/store/registry/registry-log.ts'))};
  import { normaliseEntry } from ${JSON.stringify(join(ROOT, 'lib/store/registry/entry.ts'))};
  import { readRegistryOnDisk } from ${JSON.stringify(join(ROOT, 'lib/store/testing/registry-on-disk.ts'))};
  const dir = ${JSON.stringify(sessionsDir)};
  const registry = new Registry();
  const segments = listSegments(dir);
  registry.load(existsSync(join(dir, 'index.json')) ? Object.values(readRegistryOnDisk(dir)) : []);
  const writer = new RegistryWriter(dir, registry, { compactBytes: 1024, workerMinEntries: 0 });
  writer.begin(segments, 0);
  if (!existsSync(join(dir, 'index.json'))) writer.flushSync();
  const say = (line) => process.stdout.write(JSON.stringify(line) + '\\n');
  say({ ready: true });
  let random = ${cycle * 7919 + 17};
  const pick = (n) => { random = (random * 1103515245 + 12345) % 2147483648; return random % n; };
  for (let n = 0; ; n++) {
    const id = 's' + pick(40);
    const op = pick(4) === 0 ? { id, title: null } : { id, title: 't${cycle}-' + n };
    say({ begin: op });
    if (op.title === null) registry.delete(id);
    else if (registry.has(id)) registry.patch(id, { title: op.title });
    else registry.set(normaliseEntry(id, { title: op.title, created_at: 1, updated_at: n }, 'default'));
    await writer.writeNow();
    say({ ack: op, compactions: writer.compactions });
  }
`;

type Op = { id: string; title: string | null };

function runAndKill(script: string, delayMs: number): Promise<{ acked: Op[]; inFlight: Op | null; compactions: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: Op[] = [];
    let inFlight: Op | null = null;
    let compactions = 0;
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffer.slice(0, end)) as { ready?: true; begin?: Op; ack?: Op; compactions?: number };
        buffer = buffer.slice(end + 1);
        if (line.ready) setTimeout(() => child.kill('SIGKILL'), delayMs);
        if (line.begin) inFlight = line.begin;
        if (line.ack) {
          acked.push(line.ack);
          inFlight = null;
          compactions = line.compactions ?? compactions;
        }
      }
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve({ acked, inFlight, compactions }) : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
}

describe('compaction in a worker, killed at random points', () => {
  const temp = tempDir();
  afterAll(() => temp.cleanup());

  it('loses no acknowledged change', async () => {
    const sessionsDir = join(temp.dir, 'sessions');
    mkdirSync(sessionsDir, { recursive: true });
    const expected = new Map<string, string | null>();
    let compactions = 0;
    for (let cycle = 0; cycle < KILLS; cycle++) {
      const script = join(temp.dir, `writer-${cycle}.mts`);
      writeFileSync(script, WRITER(sessionsDir, cycle));
      const { acked, inFlight, compactions: seen } = await runAndKill(script, 150 + ((cycle * 137) % 400));
      compactions += seen;
      for (const op of acked) expected.set(op.id, op.title);
      expect(existsSync(join(sessionsDir, 'index.json'))).toBe(true);
      const onDisk = readRegistryOnDisk(sessionsDir);
      for (const [id, title] of expected) {
        if (inFlight?.id === id) continue; // may or may not have reached the disk
        expect(onDisk[id]?.title ?? null, `${id} after kill ${cycle}`).toBe(title);
      }
      if (inFlight) expected.set(inFlight.id, onDisk[inFlight.id]?.title ?? null);
    }
    expect(compactions).toBeGreaterThan(0);
  }, 120_000);
});
