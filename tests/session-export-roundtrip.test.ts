import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SESSION_EXPORT_SCHEMA, sessionJson } from '../lib/export/session-json.js';
import { SESSION_EXPORT_SCHEMA as IMPORTED_SCHEMA } from '../lib/import/session-export.js';
import { allSessionIds, sessionsZip } from '../lib/export/sessions-zip.js';
import { collect, seedExportSession } from '../lib/export/testing/session-fixture.js';
import { importFile } from '../lib/import/index.js';
import type { ImportNode, SessionStore } from '../lib/store/index.js';
import { openTempStore, tempStoresPerTest } from '../lib/store/testing/temp-store.js';

/** The export without the moment it was made. */
async function exported(store: SessionStore, id: string): Promise<Record<string, unknown>> {
  const doc = JSON.parse((await collect(sessionJson(store, id))).toString('utf8')) as Record<string, unknown>;
  delete doc['exportedAt'];
  return doc;
}

async function* once(bytes: Buffer): AsyncGenerator<Uint8Array> {
  // in two pieces, so a reader that only looks at the first chunk is caught
  yield bytes.subarray(0, 40);
  yield bytes.subarray(40);
}

describe('our JSON export imported back', () => {
  const open = tempStoresPerTest();

  it('reads the schema the export writes', () => {
    expect(IMPORTED_SCHEMA).toBe(SESSION_EXPORT_SCHEMA);
  });

  it('gives the same session: ids, every node and branch, tool calls, reasoning, metadata; a second import adds nothing', async () => {
    const { store: source } = await open();
    await seedExportSession(source, 's');
    const file = await collect(sessionJson(source, 's'));
    const { store: target } = await open();
    const report = await importFile(target, 's.json', once(file));
    expect(report).toMatchObject({ added: 1, updated: 0, unchanged: 0, skipped: [] });
    expect(await exported(target, 's')).toEqual(await exported(source, 's'));
    const nodes = await target.getNodes('s');
    expect(nodes.find((node) => node.role === 'tool')).toMatchObject({ name: 'list_directory', input: { path: '.' } });
    expect(nodes.find((node) => node.metadata['reasoning'] === 'the user wants ls')).toBeDefined();
    expect(await importFile(target, 's.json', once(file))).toMatchObject({ added: 0, updated: 0, unchanged: 1, skipped: [] });
    // into the store it came from: already there, nothing added
    expect(await importFile(source, 's.json', once(file))).toMatchObject({ added: 0, unchanged: 1 });
    expect(await exported(source, 's')).toEqual(await exported(target, 's'));
  });

  it('imports the all-sessions zip back whole', async () => {
    const { store: source } = await open();
    await seedExportSession(source, 's1');
    await seedExportSession(source, 's2');
    await source.createSession({ id: 'empty', title: 'Nothing said yet' });
    const zip = await collect(sessionsZip(source, allSessionIds(source)));
    const { store: target } = await open();
    const report = await importFile(target, 'entity-memory-sessions.zip', once(zip));
    expect(report).toMatchObject({ added: 2, unchanged: 0, skipped: [{ file: 'entity-memory-sessions.zip:empty.json', line: 0, reason: 'session empty has no messages: nothing to import' }] });
    for (const id of ['s1', 's2']) expect(await exported(target, id)).toEqual(await exported(source, id));
    expect(await importFile(target, 'entity-memory-sessions.zip', once(zip))).toMatchObject({ added: 0, unchanged: 2 });
  });

  // Sessions of any shape: forks anywhere, retries, tool calls, system notes, metadata of any kind.
  const sessionShape = fc
    .array(
      fc.record({
        kind: fc.constantFrom('user', 'assistant', 'tool', 'system', 'retry'),
        pick: fc.nat(),
        text: fc.string({ maxLength: 40 }),
        meta: fc.dictionary(fc.constantFrom('reasoning', 'model', 'usage', 'note'), fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean()), { maxKeys: 3 }),
        input: fc.option(fc.dictionary(fc.constantFrom('path', 'command'), fc.string({ maxLength: 12 }), { maxKeys: 2 }), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 30 },
    )
    .map((steps) => {
      const turns: ImportNode[][] = [];
      const conversation: string[] = [];
      const answers: string[] = [];
      let last: string | null = null;
      let at = 1_790_000_000;
      steps.forEach((step, index) => {
        const id = `n${index}`;
        at += 1 + (step.pick % 7);
        const metadata = { ...step.meta };
        if (step.kind === 'tool') {
          if (answers.length === 0) return;
          turns[turns.length - 1]!.push({ id, role: 'tool', content: step.text, parentId: null, calledBy: answers[step.pick % answers.length]!, name: 'Bash', input: step.input ?? {}, metadata, createdAt: at });
          return;
        }
        if (step.kind === 'user' || turns.length === 0) {
          const parent = conversation.length === 0 || step.pick % 4 === 0 ? last : conversation[step.pick % conversation.length]!;
          turns.push([{ id, role: 'user', content: step.text, parentId: parent, metadata, createdAt: at }]);
        } else if (step.kind === 'retry' && conversation[step.pick % conversation.length] !== last) {
          // an answer again to an earlier message: its own turn, the old answer on a branch (the
          // export has no commits: a turn is seen where a user message or such a fork starts one)
          const parent = conversation[step.pick % conversation.length]!;
          turns.push([{ id, role: 'assistant', content: step.text, parentId: parent, metadata, createdAt: at }]);
          answers.push(id);
        } else {
          const role = step.kind === 'system' ? 'system' : 'assistant';
          turns[turns.length - 1]!.push({ id, role, content: step.text, parentId: last, metadata, createdAt: at });
          if (role === 'assistant') answers.push(id);
        }
        conversation.push(id);
        last = id;
      });
      return turns;
    })
    .filter((turns) => turns.length > 0);

  it('round-trips sessions of any shape: export, import into a fresh store, export again: equal', async () => {
    await fc.assert(
      fc.asyncProperty(sessionShape, fc.string({ maxLength: 20 }), async (turns, title) => {
        const source = await openTempStore();
        const target = await openTempStore();
        try {
          await source.store.importSession({ id: 'gen', source: 'claude-code', title, turns });
          const file = await collect(sessionJson(source.store, 'gen'));
          const report = await importFile(target.store, 'gen.json', once(file));
          expect(report.skipped).toEqual([]);
          expect(report.added).toBe(1);
          expect(await exported(target.store, 'gen')).toEqual(await exported(source.store, 'gen'));
        } finally {
          await source.cleanup();
          await target.cleanup();
        }
      }),
      { numRuns: 15 },
    );
  });
});
