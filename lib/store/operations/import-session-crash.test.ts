import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { tempDir } from '../testing/temp-store.js';
import { REPO_ROOT as ROOT, runAndKill, SAY_SOURCE } from '../testing/kill-harness.js';

const KILLS = 6;
const TURNS = 8;
const NODES = TURNS * 4;

/** Imports session after session (8 turns of a prompt, a call, its result, an answer) until killed. */
const WRITER = (stateDir: string, cycle: number, first: string | null): string => `${SAY_SOURCE}
  import { SessionStore } from ${JSON.stringify(join(ROOT, 'lib/store/index.ts'))};
  const store = await SessionStore.open({ stateDir: ${JSON.stringify(stateDir)}, debounceMs: 30 });
  const turnsOf = (id) => {
    const turns = [];
    let parent = null;
    for (let t = 0; t < ${TURNS}; t++) {
      const at = 1790000000 + t * 60;
      const u = id + '-u' + t, a = id + '-a' + t, b = id + '-b' + t;
      turns.push([
        { id: u, role: 'user', content: 'question ' + t, parentId: parent, createdAt: at },
        { id: a, role: 'assistant', content: '', parentId: u, createdAt: at + 1 },
        { id: id + '-t' + t, role: 'tool', content: 'result '.repeat(50), parentId: null, calledBy: a, name: 'Read', input: { path: 'f' + t }, createdAt: at + 2 },
        { id: b, role: 'assistant', content: 'answer ' + t, parentId: a, createdAt: at + 3 },
      ]);
      parent = b;
    }
    return turns;
  };
  say({ ready: true });
  const ids = ${JSON.stringify(first ? [first] : [])};
  for (let n = 0; ; n++) {
    const id = ids.shift() ?? 'imp-${cycle}-' + n;
    say({ begin: id });
    await store.importSession({ id, source: 'claude-code', title: 'T ' + id, turns: turnsOf(id) });
    say({ ack: id });
  }
`;

describe('importSession crash safety', () => {
  const temp = tempDir();
  afterAll(() => temp.cleanup());

  it(`leaves no half session when killed at ${KILLS} points of an import burst; the registry equals every meta.json; importing again completes`, { timeout: 300_000 }, async () => {
    const stateDir = temp.dir;
    const whole = new Set<string>();
    let inFlight: string | null = null;
    let seed = 4242;
    for (let cycle = 0; cycle < KILLS; cycle++) {
      const script = join(stateDir, `writer-${cycle}.mts`);
      writeFileSync(script, WRITER(stateDir, cycle, inFlight));
      seed = (seed * 48271) % 2147483647;
      const run = await runAndKill<string>(script, 100 + (seed % 700));
      for (const id of run.acked) whole.add(id);
      inFlight = run.inFlight;

      const store = await SessionStore.open({ stateDir });
      try {
        const ids = new Set<string>();
        let cursor: string | null = null;
        do {
          const page = store.listSessions({ scope: 'all', limit: 200, cursor });
          for (const row of page.rows) ids.add(row.id);
          cursor = page.nextCursor;
        } while (cursor);
        // every acknowledged import whole; the one in flight whole or absent; nothing else
        for (const id of whole) expect(ids.has(id), id).toBe(true);
        for (const id of ids) expect(whole.has(id) || id === inFlight, id).toBe(true);
        for (const id of ids) expect((await store.getNodes(id)).length, id).toBe(NODES);
        if (inFlight && ids.has(inFlight)) whole.add(inFlight);
        // the registry and the session directories agree, meta.json by meta.json
        const sessionsDir = join(stateDir, 'sessions');
        const onDisk = readdirSync(sessionsDir).filter((name) => !name.startsWith('.') && existsSync(join(sessionsDir, name, 'meta.json')));
        expect(new Set(onDisk)).toEqual(ids);
        for (const id of onDisk) {
          const meta = JSON.parse(readFileSync(join(sessionsDir, id, 'meta.json'), 'utf8')) as { title: string; turn_count: number };
          expect(meta).toMatchObject({ title: `T ${id}`, turn_count: TURNS });
          expect(store.listSessions({ scope: 'all', limit: 1, q: `T ${id}` }).rows[0]?.title).toBe(`T ${id}`);
        }
      } finally {
        await store.close();
      }
    }
    expect(whole.size).toBeGreaterThan(KILLS);
  });
});
