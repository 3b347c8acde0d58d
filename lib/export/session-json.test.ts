import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../store/testing/temp-store.js';
import { SESSION_EXPORT_SCHEMA, sessionJson } from './session-json.js';
import { collect, seedExportSession } from './testing/session-fixture.js';
import { syntheticSource } from './testing/synthetic-source.js';

describe('JSON export', () => {
  const open = tempStoresPerTest();

  it('carries every node of every branch as the store has it, and the branches, schema-versioned', async () => {
    const { store } = await open();
    const seeded = await seedExportSession(store);
    const doc = JSON.parse((await collect(sessionJson(store, 's', 1234))).toString('utf8')) as Record<string, unknown>;
    expect(doc['schema']).toBe(SESSION_EXPORT_SCHEMA);
    expect(doc['exportedAt']).toBe(1234);
    expect(doc['session']).toEqual(await store.getSession('s'));
    expect(doc['branches']).toEqual(await store.listBranches('s'));
    expect(doc['nodes']).toEqual(await store.getNodes('s'));
    const ids = (doc['nodes'] as Array<{ id: string }>).map((n) => n.id);
    expect(ids).toEqual(expect.arrayContaining([seeded.old.id, seeded.fresh.id, seeded.tool.id]));
    const a1 = (doc['nodes'] as Array<{ id: string; metadata: Record<string, unknown> }>).find((n) => n.id === seeded.a1.id)!;
    expect(a1.metadata['reasoning']).toBe('the user wants ls');
  });

  it('pages through more nodes than one store page and yields a node at a time', async () => {
    const { store } = await open();
    await store.createSession({ id: 'big' });
    for (let i = 0; i < 450; i++) await store.appendMessage('big', { role: i % 2 ? 'assistant' : 'user', content: `m${i}` });
    let chunks = 0;
    const parts: string[] = [];
    for await (const part of sessionJson(store, 'big')) {
      chunks++;
      parts.push(part);
    }
    expect(chunks).toBe(450 + 2);
    expect((JSON.parse(parts.join('')) as { nodes: unknown[] }).nodes).toHaveLength(450);
  });

  it('refuses an unknown session before writing anything', async () => {
    const { store } = await open();
    await expect(collect(sessionJson(store, 'nope'))).rejects.toThrow(/nope/);
  });
});

describe('JSON export of a long session', () => {
  it('reads the nodes a page at a time, as the text is taken, never the whole session', async () => {
    const { source, stats } = syntheticSource(1_000, (seq) => `message ${seq}`);
    const parts = sessionJson(source, 'long');
    await parts.next();
    await parts.next();
    expect(stats.pagesRead).toBe(1);
    let nodes = 1;
    for (let next = await parts.next(); !next.done; next = await parts.next()) {
      if (next.value.startsWith(',')) nodes++;
      // A page is asked for only once the one before has been written out.
      expect(stats.messagesRead).toBeLessThanOrEqual(Math.ceil(nodes / 200) * 200);
    }
    expect(nodes).toBe(1_000);
    expect(stats.largestPage).toBeLessThanOrEqual(200);
  });
});
