import { describe, expect, it } from 'vitest';
import { Registry, decodeCursor } from './registry.js';
import { normaliseEntry } from './entry.js';
import type { RegistryEntry } from '../types.js';

function entry(id: string, updatedAt: number, extra: Partial<RegistryEntry> = {}): RegistryEntry {
  return { ...normaliseEntry(id, { created_at: 1, updated_at: updatedAt }, 'default'), ...extra };
}

describe('Registry', () => {
  it('keeps newest first with ties by id, across inserts, updates and deletes', () => {
    const registry = new Registry();
    registry.load([entry('b', 5), entry('a', 5), entry('c', 9)]);
    registry.set(entry('d', 7));
    expect(registry.page({ scope: 'all' }, 10, null).entries.map((e) => e.id)).toEqual(['c', 'd', 'a', 'b']);
    registry.patch('a', { updated_at: 10 });
    registry.delete('c');
    expect(registry.page({ scope: 'all' }, 10, null).entries.map((e) => e.id)).toEqual(['a', 'd', 'b']);
  });

  it('stays sorted, with each row’s search text, through random moves near and far, renames and deletes', () => {
    const registry = new Registry();
    const reference = new Map<string, RegistryEntry>();
    const count = 6_000; // so that some moves pass the distance where it splices instead of shifting
    const initial = Array.from({ length: count }, (_, i) => entry(`s${i}`, i % 2_500, { title: `Title ${i};` }));
    registry.load(initial);
    for (const e of initial) reference.set(e.id, e);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let step = 0; step < 3_000; step++) {
      const id = `s${random(count + 200)}`; // some ids are new, some deleted ones come back
      const current = reference.get(id);
      const kind = random(5);
      if (kind === 0 && current) {
        registry.delete(id);
        reference.delete(id);
        continue;
      }
      const updatedAt = kind === 1 && current ? current.updated_at : kind === 2 ? 2_500 + step : random(2_600);
      const next = entry(id, updatedAt, { title: `Title ${id} at ${step};` });
      if (current && kind === 3) registry.patch(id, { updated_at: next.updated_at, title: next.title });
      else registry.set(next);
      reference.set(id, next);
    }
    const expected = [...reference.values()]
      .sort((a, b) => b.updated_at - a.updated_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((e) => `${e.id} ${e.updated_at} ${e.title}`);
    const listed = registry.page({ scope: 'all' }, count * 2, null).entries.map((e) => `${e.id} ${e.updated_at} ${e.title}`);
    expect(listed).toEqual(expected);
    // The search text moved with its row: every title is found under its own row.
    for (const id of ['s1', 's77', 's5999', 's6100']) {
      const row = reference.get(id);
      if (!row) continue;
      expect(registry.page({ scope: 'all', q: row.title.toLowerCase() }, 5, null).entries.map((e) => e.id)).toEqual([id]);
    }
  });

  it('pages with a stable cursor even when rows change between pages', () => {
    const registry = new Registry();
    registry.load(Array.from({ length: 10 }, (_, i) => entry(`s${i}`, 100 + i)));
    const first = registry.page({}, 4, null);
    expect(first.entries.map((e) => e.id)).toEqual(['s9', 's8', 's7', 's6']);
    expect(first.more).toBe(true);
    const cursor = Buffer.from(JSON.stringify([first.entries[3]!.updated_at, first.entries[3]!.id])).toString('base64url');
    // A row from the first page moves to the top: the next page neither repeats nor skips.
    registry.patch('s8', { updated_at: 500 });
    const second = registry.page({}, 4, cursor);
    expect(second.entries.map((e) => e.id)).toEqual(['s5', 's4', 's3', 's2']);
    const third = registry.page({}, 4, Buffer.from(JSON.stringify([102, 's2'])).toString('base64url'));
    expect(third.entries.map((e) => e.id)).toEqual(['s1', 's0']);
    expect(third.more).toBe(false);
  });

  it('filters by scope, flags, status, source, project and a case-insensitive search of title and preview', () => {
    const registry = new Registry();
    registry.load([
      entry('a', 1, { archived: true, title: 'Alpha' }),
      entry('b', 2, { pinned: true, preview: 'the BETA test' }),
      entry('c', 3, { unread: true, status: 'failed', source: 'cli', project_id: 'p1' }),
    ]);
    const ids = (filter: Parameters<Registry['page']>[0]): string[] => registry.page(filter, 50, null).entries.map((e) => e.id);
    expect(ids({})).toEqual(['c', 'b']);
    expect(ids({ scope: 'archived' })).toEqual(['a']);
    expect(ids({ scope: 'all' })).toEqual(['c', 'b', 'a']);
    expect(ids({ pinned: true })).toEqual(['b']);
    expect(ids({ unread: true })).toEqual(['c']);
    expect(ids({ status: 'failed' })).toEqual(['c']);
    expect(ids({ source: 'cli' })).toEqual(['c']);
    expect(ids({ projectId: 'p1' })).toEqual(['c']);
    expect(ids({ q: 'beta' })).toEqual(['b']);
    expect(ids({ q: 'ALPHA', scope: 'all' })).toEqual(['a']);
    expect(registry.count({ scope: 'all' })).toBe(3);
    expect(registry.count({ q: 'nothing' })).toBe(0);
  });

  it('refuses a cursor it did not make', () => {
    expect(() => decodeCursor('not-a-cursor')).toThrow(/invalid cursor/);
  });

  it('serializes index.json pretty-printed and parseable, rebuilding only changed entries', () => {
    const registry = new Registry();
    registry.load([entry('a', 1), entry('b', 2)]);
    const first = JSON.parse(registry.serialize()) as Record<string, RegistryEntry>;
    expect(Object.keys(first).sort()).toEqual(['a', 'b']);
    registry.patch('a', { title: 'renamed' });
    const second = JSON.parse(registry.serialize()) as Record<string, RegistryEntry>;
    expect(second['a']!.title).toBe('renamed');
    expect(registry.serialize()).toContain('\n    "title": "renamed"');
  });
});
