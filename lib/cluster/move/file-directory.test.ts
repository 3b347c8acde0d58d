import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileShardDirectory } from './file-directory.js';
import { MoveJournal, newMoveId, type MoveRecord } from './journal.js';
import { rebaseUserPaths } from './rebase.js';
import { pathOfLocation } from './instance-control.js';


const USER = '0123456789abcdef';
let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('FileShardDirectory', () => {
  it('flips only from the owner at the epoch, raising it by one; state changes are compare-and-set', async () => {
    root = mkdtempSync(join(tmpdir(), 'em-dir-'));
    const directory = new FileShardDirectory(join(root, 'directory.json'));
    directory.addInstance('a', 'http://a');
    directory.place(USER, 'a');
    await expect(directory.setState(USER, 'moving', 2)).rejects.toThrow(/no longer at epoch 2/);
    expect(await directory.setState(USER, 'frozen', 1)).toEqual({ shard: 'a', epoch: 1, state: 'frozen' });
    await expect(directory.flip(USER, 'b', 'a', 1)).rejects.toThrow(/not on b at epoch 1/);
    expect(await directory.flip(USER, 'a', 'b', 1)).toEqual({ shard: 'b', epoch: 2, state: 'active' });
    await expect(directory.flip(USER, 'a', 'b', 1)).rejects.toThrow(/says b at 2/);
    expect(await directory.instances()).toEqual([{ id: 'a', url: 'http://a' }]);
  });
});

describe('MoveJournal', () => {
  it('keeps one file per move, newest first, and finds the user’s move that has not ended', () => {
    root = mkdtempSync(join(tmpdir(), 'em-journal-'));
    const journal = new MoveJournal(join(root, 'moves'));
    const record = (at: number, status: MoveRecord['status']): MoveRecord => ({ id: newMoveId(at), userId: USER, from: 'a', to: 'b', epoch: 1, step: 'precopy', status, startedAt: at, updatedAt: at, finished: [] });
    const old = record(1_000, 'done');
    const open = record(2_000, 'failed');
    journal.save(old);
    journal.save(open);
    expect(journal.list().map((move) => move.id)).toEqual([open.id, old.id]);
    expect(journal.openMoveOf(USER)?.id).toBe(open.id);
    expect(journal.get('../../etc/passwd')).toBeNull();
    expect(() => journal.save({ ...old, id: '../x' })).toThrow(/bad move id/);
  });
});

describe('rebaseUserPaths and rsync locations', () => {
  it('rewrites the source’s paths of this user to the target’s, and leaves others alone', () => {
    root = mkdtempSync(join(tmpdir(), 'em-rebase-'));
    const target = join(root, 'b');
    const locations = join(target, 'users', USER, 'sessions', 'locations.json');
    mkdirSync(join(target, 'users', USER, 'sessions'), { recursive: true });
    writeFileSync(locations, JSON.stringify({ s1: `/src/users/${USER}/sessions/projects/p/s1`, s2: '/elsewhere/s2', s3: `/src/users/${USER}x/s3` }));
    expect(rebaseUserPaths('/src', target, USER)).toEqual([locations]);
    expect(JSON.parse(readFileSync(locations, 'utf8'))).toEqual({ s1: `${target}/users/${USER}/sessions/projects/p/s1`, s2: '/elsewhere/s2', s3: `/src/users/${USER}x/s3` });
    expect(rebaseUserPaths('/src', target, USER)).toEqual([]);
    expect(pathOfLocation('host:/data')).toBe('/data');
    expect(pathOfLocation('/data')).toBe('/data');
  });
});
