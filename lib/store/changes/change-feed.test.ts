import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeFeed, CHANGES_DIR } from './change-feed.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'change-feed-'));
  dirs.push(dir);
  return dir;
}

describe('ChangeFeed', () => {
  it('numbers records in order, keeps them across a reopen, and reads on from a position', () => {
    const dir = stateDir();
    const feed = new ChangeFeed(dir);
    const seen: number[] = [];
    feed.subscribe(({ record }) => seen.push(record.seq));
    feed.append('a', 'created');
    feed.append('a', 'nodes', { nodeIds: ['n1'] });
    feed.append('b', 'deleted');
    feed.close();
    expect(seen).toEqual([1, 2, 3]);
    const again = new ChangeFeed(dir);
    expect(again.lastSeq).toBe(3);
    expect(again.readAfter(1)).toEqual([
      { seq: 2, sessionId: 'a', kind: 'nodes', nodeIds: ['n1'] },
      { seq: 3, sessionId: 'b', kind: 'deleted' },
    ]);
    expect(again.readAfter(3)).toEqual([]);
    expect(again.append('c', 'session').seq).toBe(4);
    again.close();
  });

  it('a torn last line (a kill mid-write) is skipped and the next record starts a line of its own', () => {
    const dir = stateDir();
    const feed = new ChangeFeed(dir);
    feed.append('a', 'created');
    feed.close();
    const [segment] = readdirSync(join(dir, CHANGES_DIR));
    appendFileSync(join(dir, CHANGES_DIR, segment!), '{"seq":2,"sessionId":"b","ki');
    const again = new ChangeFeed(dir);
    expect(again.lastSeq).toBe(1);
    again.append('b', 'created');
    expect(again.readAfter(0)!.map((record) => [record.seq, record.sessionId])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    again.close();
  });

  it('release removes only segments wholly passed; a position before what is left reads as null', () => {
    const dir = stateDir();
    const feed = new ChangeFeed(dir);
    // past SEGMENT_BYTES (1 MiB): several segments
    const ids = Array.from({ length: 200 }, (_, i) => `n${i}`.padEnd(40, 'x'));
    for (let i = 0; i < 300; i++) feed.append(`s${i}`, 'nodes', { nodeIds: ids });
    const segments = readdirSync(join(dir, CHANGES_DIR)).length;
    expect(segments).toBeGreaterThan(1);
    feed.release(feed.lastSeq);
    expect(readdirSync(join(dir, CHANGES_DIR))).toHaveLength(1);
    expect(feed.readAfter(0)).toBeNull();
    expect(feed.readAfter(feed.lastSeq - 1)!.map((record) => record.seq)).toEqual([feed.lastSeq]);
    feed.close();
  });
});

describe('ChangeFeed with two consumers', () => {
  it('a segment goes only once every consumer has passed it', () => {
    const dir = stateDir();
    const feed = new ChangeFeed(dir);
    const ids = Array.from({ length: 200 }, (_, i) => `n${i}`.padEnd(40, 'x'));
    for (let i = 0; i < 300; i++) feed.append(`s${i}`, 'nodes', { nodeIds: ids });
    const segments = readdirSync(join(dir, CHANGES_DIR)).length;
    feed.release(1, 'usage');
    feed.release(feed.lastSeq, 'search');
    // the usage rollups are still at 1: everything after it stays
    expect(readdirSync(join(dir, CHANGES_DIR))).toHaveLength(segments);
    expect(feed.readAfter(1)).toHaveLength(feed.lastSeq - 1);
    feed.release(feed.lastSeq, 'usage');
    expect(readdirSync(join(dir, CHANGES_DIR))).toHaveLength(1);
    feed.close();
  });
});

describe('ChangeFeed on a failing disk', () => {
  it('a record it cannot write yet is kept, told to consumers at once, and written before the next one', () => {
    const dir = stateDir();
    const feed = new ChangeFeed(dir);
    feed.append('a', 'created');
    const seen: string[] = [];
    feed.subscribe(({ record }) => seen.push(record.sessionId));
    // As ENOSPC would: the open segment refuses writes.
    const internals = feed as unknown as { fd: number };
    const fd = internals.fd;
    internals.fd = -1;
    expect(() => feed.append('b', 'nodes', { nodeIds: ['n1'] })).not.toThrow();
    expect(seen).toEqual(['b']);
    expect(feed.readAfter(0)!.map((record) => record.sessionId)).toEqual(['a', 'b']);
    internals.fd = fd;
    feed.append('c', 'deleted');
    feed.close();
    expect(new ChangeFeed(dir).readAfter(0)!.map((record) => [record.seq, record.sessionId])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
  });
});
