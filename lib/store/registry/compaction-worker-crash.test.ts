import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-store.js';
import { readRegistryOnDisk } from '../testing/registry-on-disk.js';
import { REPO_ROOT as ROOT, runAndKill, SAY_SOURCE } from '../testing/kill-harness.js';

const KILLS = 8;

/** A registry writer whose every compaction runs in the worker (log bound 1 KB), acknowledging each durable change. */
const WRITER = (sessionsDir: string, cycle: number): string => `${SAY_SOURCE}
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
      const { acked, inFlight, lastAck } = await runAndKill<Op>(script, 150 + ((cycle * 137) % 400));
      compactions += (lastAck?.compactions as number | undefined) ?? 0;
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
