import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPositions, planRead, savePositions } from './collect-positions.js';

describe('a file position', () => {
  it('reads a new file from 0, a grown one from its saved offset, an unchanged one not at all', () => {
    expect(planRead(undefined, { ino: 7, size: 100 })).toEqual({ kind: 'read', from: 0, restarted: false });
    expect(planRead(undefined, { ino: 7, size: 0 })).toEqual({ kind: 'unchanged' });
    expect(planRead({ ino: 7, offset: 60 }, { ino: 7, size: 100 })).toEqual({ kind: 'read', from: 60, restarted: false });
    expect(planRead({ ino: 7, offset: 100 }, { ino: 7, size: 100 })).toEqual({ kind: 'unchanged' });
  });

  it('reads a file that shrank or was replaced (another inode) again from 0', () => {
    expect(planRead({ ino: 7, offset: 100 }, { ino: 7, size: 40 })).toEqual({ kind: 'read', from: 0, restarted: true });
    expect(planRead({ ino: 7, offset: 100 }, { ino: 8, size: 100 })).toEqual({ kind: 'read', from: 0, restarted: true });
    expect(planRead({ ino: 7, offset: 100 }, { ino: 8, size: 300 })).toEqual({ kind: 'read', from: 0, restarted: true });
  });

  it('is saved and loaded again; a missing file is a first run; a damaged one starts over and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'collect-positions-'));
    const path = join(dir, 'nested', 'collect.json');
    expect(await loadPositions(path)).toEqual({ version: 1, files: {} });
    await savePositions(path, { version: 1, files: { '/a.jsonl': { ino: 3, offset: 42 } } });
    expect(await loadPositions(path)).toEqual({ version: 1, files: { '/a.jsonl': { ino: 3, offset: 42 } } });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ version: 1, files: { '/a.jsonl': { ino: 3, offset: 42 } } });
    writeFileSync(path, '{"version":1,"files":{"/a.jsonl":{"ino":3,"off');
    const warnings: string[] = [];
    expect(await loadPositions(path, (line) => warnings.push(line))).toEqual({ version: 1, files: {} });
    expect(warnings[0]).toContain('is damaged');
    // a position that is not one is dropped, the others kept
    writeFileSync(path, JSON.stringify({ version: 1, files: { '/a.jsonl': { ino: 3, offset: -1 }, '/b.jsonl': { ino: 4, offset: 9 } } }));
    expect(await loadPositions(path)).toEqual({ version: 1, files: { '/b.jsonl': { ino: 4, offset: 9 } } });
  });
});
