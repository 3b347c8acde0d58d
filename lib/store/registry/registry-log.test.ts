import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { tempDirsPerTest } from '../testing/temp-store.js';
import { normaliseEntry } from './entry.js';
import { ensureLogDir, listSegments, readLog, recordLine, segmentName } from './registry-log.js';
import type { RegistryEntry } from '../types.js';


function readIndex(stateDir: string): Record<string, RegistryEntry> {
  return JSON.parse(readFileSync(join(stateDir, 'sessions', 'index.json'), 'utf8')) as Record<string, RegistryEntry>;
}

function entry(id: string, title: string): RegistryEntry {
  return normaliseEntry(id, { title, created_at: 1_800_000_000, updated_at: 1_800_000_000 }, 'default');
}

describe('registry log', () => {
  const dir = tempDirsPerTest();

  it('makes create, update and delete durable as log records, leaving index.json untouched', async () => {
    const stateDir = dir();
    const store = await SessionStore.open({ stateDir });
    await store.createSession({ id: 'kept' });
    await store.close();
    const indexPath = join(stateDir, 'sessions', 'index.json');
    const snapshot = readFileSync(indexPath, 'utf8');
    const mtime = statSync(indexPath).mtimeMs;

    const again = await SessionStore.open({ stateDir });
    await again.createSession({ id: 'made' });
    await again.updateSession('kept', { title: 'Renamed' });
    await again.deleteSession('made');
    expect(readFileSync(indexPath, 'utf8')).toBe(snapshot);
    expect(statSync(indexPath).mtimeMs).toBe(mtime);
    const records = readLog(join(stateDir, 'sessions')).records;
    expect(records.map((record) => (record.op === 'set' ? `set ${record.entry.id} ${record.entry.title}` : `delete ${record.id}`))).toEqual([
      'set made ',
      'set kept Renamed',
      'delete made',
    ]);
    await again.close();
  });

  it('ignores a torn last record and replays the complete ones over index.json', async () => {
    const stateDir = dir();
    const sessionsDir = join(stateDir, 'sessions');
    mkdirSync(sessionsDir, { recursive: true });
    writeFileSync(join(sessionsDir, 'index.json'), JSON.stringify({ a: entry('a', 'Old'), b: entry('b', 'B') }, null, 2));
    ensureLogDir(sessionsDir);
    const segment = join(sessionsDir, segmentName(1));
    writeFileSync(segment, recordLine({ op: 'set', entry: entry('a', 'Good') }) + recordLine({ op: 'delete', id: 'b' }));
    // A write the crash cut short: no newline, not even complete JSON.
    appendFileSync(segment, JSON.stringify({ op: 'set', entry: entry('a', 'Torn') }).slice(0, 40));
    expect(readLog(sessionsDir).tornTails).toBe(1);

    const store = await SessionStore.open({ stateDir });
    expect(store.startup.rebuilt).toBe(false);
    expect(store.listSessions({ scope: 'all' }).rows.map((row) => [row.id, row.title])).toEqual([['a', 'Good']]);
    // New records go to a new segment, never after the torn line.
    await store.createSession({ id: 'c' });
    expect(listSegments(sessionsDir)).toEqual([1, 2]);
    await store.close();
    expect(Object.keys(readIndex(stateDir)).sort()).toEqual(['a', 'c']);
    expect(readIndex(stateDir)['a']!.title).toBe('Good');
    expect(listSegments(sessionsDir)).toEqual([]);
  });

  it('rebuilds from every meta.json when a complete log line is damaged', async () => {
    const stateDir = dir();
    const store = await SessionStore.open({ stateDir });
    await store.createSession({ id: 'real', title: 'From meta' });
    await store.close();
    const sessionsDir = join(stateDir, 'sessions');
    writeFileSync(join(sessionsDir, segmentName(7)), `${recordLine({ op: 'set', entry: entry('ghost', 'x') })}garbage\n`);
    const reopened = await SessionStore.open({ stateDir });
    expect(reopened.startup.rebuilt).toBe(true);
    expect(reopened.listSessions({ scope: 'all' }).rows.map((row) => [row.id, row.title])).toEqual([['real', 'From meta']]);
    expect(listSegments(sessionsDir)).toEqual([]); // the rebuilt snapshot replaced the bad log
    await reopened.close();
  });

  it('a clean stop leaves index.json equal to memory, the log empty and no journal', async () => {
    const stateDir = dir();
    const store = await SessionStore.open({ stateDir, compactBytes: 512 });
    for (let i = 0; i < 12; i++) await store.createSession({ id: `s${i}` });
    for (let i = 0; i < 12; i++) await store.updateSession(`s${i}`, { title: `Title ${i}`, pinned: i % 2 === 0 });
    await store.appendMessage('s3', { role: 'user', content: 'latest words' });
    await store.setArchived('s4', true);
    await store.deleteSession('s5');
    const memory = store.listSessions({ scope: 'all', limit: 200 }).rows;
    await store.close();
    expect(store.internals.registryCompactions).toBeGreaterThan(0); // the small bound compacted meanwhile

    const sessionsDir = join(stateDir, 'sessions');
    expect(listSegments(sessionsDir)).toEqual([]);
    expect(readLog(sessionsDir).records).toEqual([]);
    expect(existsSync(join(sessionsDir, '.index-journal'))).toBe(false);
    const index = readIndex(stateDir);
    expect(Object.keys(index).sort()).toEqual(memory.map((row) => row.id).sort());
    for (const row of memory) {
      const onDisk = index[row.id]!;
      expect({ title: onDisk.title, pinned: onDisk.pinned, archived: onDisk.archived, preview: onDisk.preview, updatedAt: Math.round(onDisk.updated_at * 1000) }).toEqual({
        title: row.title,
        pinned: row.pinned,
        archived: row.archived,
        preview: row.preview,
        updatedAt: row.updatedAt,
      });
    }
  });
});
