import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../store/index.js';
import { tempDirsPerTest } from '../store/testing/temp-store.js';
import { restoreBackup, verifyBackup } from './read-backup.js';
import { BackupError, writeBackup } from './write-backup.js';

const newDir = tempDirsPerTest();
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const USER = 'aaaaaaaaaaaaaaaa';
const OTHER = 'bbbbbbbbbbbbbbbb';

/** A data directory as the server lays it out: auth files, two users' stores, a workspace. */
async function dataDirWithSessions(): Promise<{ dataDir: string; store: SessionStore; sessionId: string }> {
  const dataDir = newDir();
  mkdirSync(join(dataDir, 'auth'), { recursive: true });
  writeFileSync(join(dataDir, 'auth', 'users.json'), JSON.stringify({ version: 1, users: [{ id: USER, email: 'a@x' }, { id: OTHER, email: 'b@x' }] }));
  writeFileSync(join(dataDir, 'auth', 'tokens.json'), JSON.stringify({ version: 1, tokens: [{ id: 't1', userId: USER }, { id: 't2', userId: OTHER }] }));
  writeFileSync(join(dataDir, 'auth', 'secret'), 'instance secret');
  writeFileSync(join(dataDir, 'server.lock'), '{}');
  mkdirSync(join(dataDir, 'workspaces', USER), { recursive: true });
  writeFileSync(join(dataDir, 'workspaces', USER, 'notes.txt'), 'workspace file');
  const store = await openUserStore(dataDir, USER);
  const { row } = await store.createSession({ title: 'kept' });
  await store.appendMessage(row.id, { role: 'user', content: 'first question' });
  await store.appendMessage(row.id, { role: 'assistant', content: 'first answer' });
  const other = await openUserStore(dataDir, OTHER);
  await other.createSession({ title: 'someone else' });
  return { dataDir, store, sessionId: row.id };
}

async function openUserStore(dataDir: string, userId: string): Promise<SessionStore> {
  const store = await SessionStore.open({ stateDir: join(dataDir, 'users', userId), debounceMs: 50 });
  stores.push(store);
  return store;
}

describe('backup', () => {
  it('restores a data directory the store opens with every session, message and auth file; derived files and the lock stay out', async () => {
    const { dataDir, sessionId } = await dataDirWithSessions();
    writeFileSync(join(dataDir, 'users', USER, 'search.sqlite'), 'derived');
    const out = join(newDir(), 'backup.tar');
    const summary = await writeBackup({ dataDir, out });
    expect(summary.sessions).toBe(2);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect((await verifyBackup(out)).problems).toEqual([]);

    const restored = join(newDir(), 'restored');
    await restoreBackup(out, restored);
    expect(existsSync(join(restored, 'server.lock'))).toBe(false);
    expect(existsSync(join(restored, 'users', USER, 'search.sqlite'))).toBe(false);
    expect(readFileSync(join(restored, 'auth', 'secret'), 'utf8')).toBe('instance secret');
    expect(readFileSync(join(restored, 'workspaces', USER, 'notes.txt'), 'utf8')).toBe('workspace file');
    expect(statSync(join(restored, 'auth', 'secret')).mode & 0o777).toBe(0o600);
    const store = await openUserStore(restored, USER);
    expect(store.listSessions().rows.map((row) => row.title)).toEqual(['kept']);
    expect((await store.getBranch(sessionId)).map((message) => message.content)).toEqual(['first question', 'first answer']);
    // the session's repository is whole: git reads every object its refs name
    const repo = join(restored, 'users', USER, 'sessions', sessionId);
    expect(() => execFileSync('git', ['-C', repo, 'fsck', '--strict'], { stdio: 'pipe' })).not.toThrow();
  });

  it('takes every append acknowledged before its cut while appends go on', async () => {
    const { dataDir, store, sessionId } = await dataDirWithSessions();
    const acknowledged: Array<{ content: string; at: number }> = [];
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing && n < 1000; n++) {
        const content = `append ${n}`;
        await store.appendMessage(sessionId, { role: 'user', content });
        acknowledged.push({ content, at: Date.now() });
      }
    })();
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    const out = join(newDir(), 'backup.tar');
    const summary = await writeBackup({ dataDir, out });
    writing = false;
    await writer;
    const cut = Date.parse(summary.cutAt);
    const before = acknowledged.filter((append) => append.at < cut).map((append) => append.content);
    expect(before.length).toBeGreaterThanOrEqual(20);

    const restored = join(newDir(), 'restored');
    await restoreBackup(out, restored);
    const reopened = await openUserStore(restored, USER);
    const contents = new Set((await reopened.getNodes(sessionId)).map((node) => node.content));
    expect(before.filter((content) => !contents.has(content))).toEqual([]);
  });

  it('follows a repack that moves the objects while they are read', async () => {
    const { dataDir, sessionId } = await dataDirWithSessions();
    const repo = join(dataDir, 'users', USER, 'sessions', sessionId);
    let repacked = false;
    const out = join(newDir(), 'backup.tar');
    await writeBackup({
      dataDir,
      out,
      onProgress: (progress) => {
        // the first loose object of that repository read: pack the rest away, as the store's repack does
        if (!repacked && new RegExp(`${sessionId}/\\.git/objects/[0-9a-f]{2}/`).test(progress.path)) {
          repacked = true;
          execFileSync('git', ['-C', repo, 'repack', '-a', '-d', '-q']);
          execFileSync('git', ['-C', repo, 'prune-packed']);
        }
      },
    });
    expect(repacked).toBe(true);
    const restored = join(newDir(), 'restored');
    await restoreBackup(out, restored);
    expect(() => execFileSync('git', ['-C', join(restored, 'users', USER, 'sessions', sessionId), 'fsck', '--strict'], { stdio: 'pipe' })).not.toThrow();
  });

  it("one user's backup holds that user's folders and auth records only", async () => {
    const { dataDir } = await dataDirWithSessions();
    const out = join(newDir(), 'user.tar');
    await writeBackup({ dataDir, out, userId: USER });
    const restored = join(newDir(), 'restored');
    await restoreBackup(out, restored);
    expect(readdirSync(join(restored, 'users'))).toEqual([USER]);
    expect(existsSync(join(restored, 'auth', 'secret'))).toBe(false);
    const users = JSON.parse(readFileSync(join(restored, 'auth', 'users.json'), 'utf8')) as { users: Array<{ id: string }> };
    expect(users.users.map((user) => user.id)).toEqual([USER]);
    const tokens = JSON.parse(readFileSync(join(restored, 'auth', 'tokens.json'), 'utf8')) as { tokens: Array<{ id: string }> };
    expect(tokens.tokens.map((token) => token.id)).toEqual(['t1']);
  });

  it('verify fails a damaged or cut-off backup, and restore writes nothing from it', async () => {
    const { dataDir } = await dataDirWithSessions();
    const out = join(newDir(), 'backup.tar');
    await writeBackup({ dataDir, out });
    const bytes = readFileSync(out);
    const text = bytes.toString('latin1');
    const flipped = Buffer.from(bytes);
    const at = text.indexOf('first answer');
    expect(at).toBeGreaterThan(0);
    flipped[at] = 'F'.charCodeAt(0);
    const damaged = join(newDir(), 'damaged.tar');
    writeFileSync(damaged, flipped);
    expect((await verifyBackup(damaged)).problems.join('\n')).toMatch(/bytes differ from the manifest's checksum/);

    const cutOff = join(newDir(), 'cut.tar');
    writeFileSync(cutOff, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect((await verifyBackup(cutOff)).problems.length).toBeGreaterThan(0);

    const notOne = join(newDir(), 'other.tar');
    writeFileSync(notOne, Buffer.alloc(4096));
    expect((await verifyBackup(notOne)).problems.join('\n')).toMatch(/not an Entity Memory backup/);

    const target = join(newDir(), 'restored');
    await expect(restoreBackup(damaged, target)).rejects.toThrow(/damaged; nothing was restored/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(join(target, '..')).filter((name) => name.includes('restoring'))).toEqual([]);
  });

  it('restores only into a new or empty directory, and refuses what is no data directory', async () => {
    const { dataDir } = await dataDirWithSessions();
    const out = join(newDir(), 'backup.tar');
    await writeBackup({ dataDir, out });
    const busy = newDir();
    writeFileSync(join(busy, 'keep.txt'), 'mine');
    await expect(restoreBackup(out, busy)).rejects.toThrow(/not empty/);
    expect(readdirSync(busy)).toEqual(['keep.txt']);
    await expect(writeBackup({ dataDir: newDir(), out: join(newDir(), 'x.tar') })).rejects.toBeInstanceOf(BackupError);
    await expect(writeBackup({ dataDir, out: join(newDir(), 'x.tar'), userId: 'cccccccccccccccc' })).rejects.toThrow(/no user/);
  });
});
