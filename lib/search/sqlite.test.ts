import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { currentDriver, openSqlite } from './sqlite.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function fresh() {
  const dir = mkdtempSync(join(tmpdir(), 'em-sqlite-'));
  dirs.push(dir);
  return openSqlite(join(dir, 'test.sqlite'));
}

describe('the SQLite adapter', () => {
  it('creates the index and its -wal/-shm files owner-only (0600), and narrows one an older version left 0644', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'em-sqlite-'));
    dirs.push(dir);
    const path = join(dir, 'search.sqlite');
    const db = await openSqlite(path);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('CREATE TABLE n (v INTEGER)');
    db.prepare('INSERT INTO n (v) VALUES (?)').run(1);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
    db.close();
    const old = join(dir, 'old.sqlite');
    writeFileSync(old, '');
    chmodSync(old, 0o644);
    (await openSqlite(old)).close();
    expect((statSync(old).mode & 0o777).toString(8)).toBe('600');
  });

  it('uses better-sqlite3 under Node', () => {
    expect(currentDriver()).toBe('better-sqlite3');
  });

  it('has FTS5 with the trigram tokenizer: a three-character Japanese query finds the sentence', async () => {
    const db = await fresh();
    db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')");
    db.prepare('INSERT INTO t (x) VALUES (?)').run('日本語のエラーメッセージを直す');
    db.prepare('INSERT INTO t (x) VALUES (?)').run('fix the English error message');
    expect(db.prepare('SELECT x FROM t WHERE t MATCH ?').all('"エラー"')).toEqual([{ x: '日本語のエラーメッセージを直す' }]);
    expect(db.prepare('SELECT x FROM t WHERE t MATCH ?').all('"ERROR"')).toEqual([{ x: 'fix the English error message' }]);
    db.close();
  });

  it('rolls a transaction back when its work throws, and returns what the work returns', async () => {
    const db = await fresh();
    db.exec('CREATE TABLE n (v INTEGER)');
    expect(() =>
      db.transaction(() => {
        db.prepare('INSERT INTO n (v) VALUES (?)').run(1);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.transaction(() => (db.prepare('INSERT INTO n (v) VALUES (?)').run(2), 'done'))).toBe('done');
    expect(db.prepare('SELECT v FROM n').all()).toEqual([{ v: 2 }]);
    expect(db.prepare('SELECT v FROM n WHERE v = ?').get(9)).toBeUndefined();
    db.close();
  });
});
