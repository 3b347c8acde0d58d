import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { tempDir } from '../testing/temp-store.js';
import { REPO_ROOT as ROOT, runAndKill, SAY_SOURCE } from '../testing/kill-harness.js';
import type { SessionRow } from '../types.js';

const KILLS = 20;

/**
 * A writer that never stops: creates, renames, appends and deletes one after another, with a
 * log bound so small that compactions run all the time. Before each operation it prints what it
 * starts, after it what was acknowledged.
 */
const WRITER = (stateDir: string, cycle: number): string => `${SAY_SOURCE}
  import { SessionStore } from ${JSON.stringify(join(ROOT, 'lib/store/index.ts'))};
  const store = await SessionStore.open({ stateDir: ${JSON.stringify(stateDir)}, compactBytes: 1024, debounceMs: 30 });
  say({ ready: true });
  let random = ${cycle * 7919 + 17};
  const pick = (n) => { random = (random * 1103515245 + 12345) % 2147483648; return random % n; };
  for (let n = 0; ; n++) {
    const ids = store.listSessions({ scope: 'all', limit: 200 }).rows.map((row) => row.id);
    const roll = pick(10);
    const target = ids.length > 0 ? ids[pick(ids.length)] : null;
    let op;
    if (!target || roll < 3) op = { op: 'create', id: 'c${cycle}-' + n };
    else if (roll < 5) op = { op: 'rename', id: target, title: 't${cycle}-' + n };
    else if (roll < 8) op = { op: 'append', id: target, text: 'p${cycle}-' + n };
    else op = { op: 'delete', id: target };
    say({ begin: op });
    if (op.op === 'create') await store.createSession({ id: op.id });
    else if (op.op === 'rename') await store.updateSession(op.id, { title: op.title });
    else if (op.op === 'append') await store.appendMessage(op.id, { role: 'user', content: op.text });
    else await store.deleteSession(op.id);
    say({ ack: op });
  }
`;

type Op = { op: 'create'; id: string } | { op: 'rename'; id: string; title: string } | { op: 'append'; id: string; text: string } | { op: 'delete'; id: string };
interface Expected {
  title: string;
  preview: string | null;
}

function allRows(store: SessionStore): SessionRow[] {
  const rows: SessionRow[] = [];
  let cursor: string | null = null;
  do {
    const page = store.listSessions({ scope: 'all', limit: 200, cursor });
    rows.push(...page.rows);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

function apply(model: Map<string, Expected>, op: Op): void {
  if (op.op === 'create') model.set(op.id, model.get(op.id) ?? { title: '', preview: null });
  else if (op.op === 'delete') model.delete(op.id);
  else if (op.op === 'rename') model.set(op.id, { ...model.get(op.id)!, title: op.title });
  else model.set(op.id, { ...model.get(op.id)!, preview: op.text });
}

describe('registry crash safety', () => {
  const temp = tempDir();
  afterAll(() => temp.cleanup());

  it(`loses no acknowledged change when killed at ${KILLS} random points of a write burst`, { timeout: 240_000 }, async () => {
    const stateDir = temp.dir;
    let model = new Map<string, Expected>();
    let seed = 12345;
    let changes = 0;
    for (let cycle = 0; cycle < KILLS; cycle++) {
      const script = join(stateDir, `writer-${cycle}.mts`);
      writeFileSync(script, WRITER(stateDir, cycle));
      seed = (seed * 48271) % 2147483647;
      const { acked, inFlight } = await runAndKill<Op>(script, 30 + (seed % 300));
      changes += acked.length;
      for (const op of acked) apply(model, op);

      const store = await SessionStore.open({ stateDir });
      const rows = allRows(store);
      const actual = new Map(rows.map((row) => [row.id, { title: row.title, preview: row.preview }]));
      // The operation in flight at the kill may or may not have happened; everything before it has.
      const withInFlight = new Map([...model].map(([id, value]) => [id, { ...value }]));
      if (inFlight) apply(withInFlight, inFlight);
      const sorted = (map: Map<string, Expected>): string => JSON.stringify([...map].sort());
      expect([sorted(model), sorted(withInFlight)], `cycle ${cycle}, in flight ${JSON.stringify(inFlight)}`).toContain(sorted(actual));
      if (sorted(model) !== sorted(actual)) model = withInFlight;

      // And the registry says what every session's own meta.json says.
      for (const row of rows) {
        const meta = JSON.parse(readFileSync(join(stateDir, 'sessions', row.id, 'meta.json'), 'utf8')) as { title: string; preview?: string | null };
        expect({ id: row.id, title: row.title, preview: row.preview }).toEqual({ id: row.id, title: meta.title, preview: meta.preview ?? null });
      }
      await store.close();
    }
    expect(changes).toBeGreaterThan(KILLS); // the kills did land in the middle of work
  });
});
