import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { migrateShareLinks, ShareLinkStore, type CreateShareInput } from './share-links';
import { FileShareIndex } from './share-index';
import { isShareId, newShareId, SHARE_ID_PATTERN } from './share-id';
import { mayOpenShares, parseSharingMode } from './sharing-mode';
import { shareClock } from './clock';
import { writeFileSync } from 'node:fs';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
/** A data directory (its auth/ and users/ folders). */
function makeTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'share-links-'));
  dirs.push(dir);
  return join(dir, 'data');
}

const DAY = 24 * 60 * 60 * 1000;
const PIN = { sha: 'a'.repeat(40), turn: 2 };
const NEWER = { sha: 'b'.repeat(40), turn: 3 };
const U1 = '1111111111111111';
const U2 = '2222222222222222';

function storeAt(start = 1_000_000) {
  const dir = makeTempDir();
  let now = start;
  const store = new ShareLinkStore(dir, new FileShareIndex(join(dir, 'auth')), () => now);
  return { dir, store, advance: (ms: number) => (now += ms), reopen: () => new ShareLinkStore(dir, new FileShareIndex(join(dir, 'auth')), () => now) };
}

const pinned = (over: Partial<CreateShareInput> = {}): CreateShareInput => ({ sessionId: 's1', scope: 'session', pin: PIN, expires: 'never', toolCalls: true, ...over });

describe('share ids', () => {
  it('are 128 random bits in base64url, never repeated', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newShareId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(SHARE_ID_PATTERN);
    // every character position varies: nothing fixed or derived
    const first = new Set([...ids].map((id) => id[0]));
    expect(first.size).toBeGreaterThan(40);
    expect(Buffer.from([...ids][0]!, 'base64url')).toHaveLength(16);
  });

  it('reject anything else', () => {
    for (const bad of ['', 'x', 's1', 'A'.repeat(21) + 'B', 'A'.repeat(23), '../../etc/passwd', 'A'.repeat(21) + '=']) expect(isShareId(bad)).toBe(false);
    expect(isShareId('A'.repeat(21) + 'w')).toBe(true);
  });
});

describe('ShareLinkStore', () => {
  it('pins a link to the turn commit it was made at; update moves the same link to a newer one', async () => {
    const { store, advance } = storeAt();
    const link = await store.create(U1, pinned());
    expect(link).toMatchObject({ sessionId: 's1', scope: 'session', sha: PIN.sha, turn: 2, expiresAt: null, expired: false });
    expect((await store.open(link.id))?.sha).toBe(PIN.sha);
    advance(1000);
    const moved = store.update(U1, link.id, { pin: NEWER });
    expect(moved.id).toBe(link.id);
    expect(await store.open(link.id)).toMatchObject({ sha: NEWER.sha, turn: 3, updatedAt: link.createdAt + 1000 });
  });

  it('a live link has no pin until it is pinned again', async () => {
    const { store } = storeAt();
    const live = await store.create(U1, pinned({ scope: 'live', pin: null }));
    expect(live).toMatchObject({ scope: 'live', sha: null, turn: null });
    expect(() => store.update(U1, live.id, { live: false })).toThrow(/needs a turn commit/);
    expect((await store.open(live.id))?.scope).toBe('live'); // the refused update changed nothing
    expect(store.update(U1, live.id, { live: false, pin: NEWER })).toMatchObject({ scope: 'session', sha: NEWER.sha });
    expect(store.update(U1, live.id, { live: true })).toMatchObject({ scope: 'live', sha: null });
  });

  it('refuses a pinned link of a session with no finished turn, and writes nothing', async () => {
    const { store, dir } = storeAt();
    await expect(store.create(U1, pinned({ pin: null }))).rejects.toThrow(/no finished turn/);
    expect(existsSync(join(dir, 'users', U1, 'share-links.json'))).toBe(false);
    expect(existsSync(join(dir, 'auth', 'share-index.json'))).toBe(false);
  });

  it('expires after 1, 7 or 30 days, to the millisecond; never means never', async () => {
    const { store, advance } = storeAt();
    const links = { '1d': await store.create(U1, pinned({ expires: '1d' })), '7d': await store.create(U1, pinned({ expires: '7d' })), '30d': await store.create(U1, pinned({ expires: '30d' })), never: await store.create(U1, pinned()) };
    advance(DAY - 1);
    expect(await store.open(links['1d'].id)).not.toBeNull();
    advance(1);
    expect(await store.open(links['1d'].id)).toBeNull();
    expect(store.list(U1).find((l) => l.id === links['1d'].id)?.expired).toBe(true);
    advance(6 * DAY);
    expect(await store.open(links['7d'].id)).toBeNull();
    expect(await store.open(links['30d'].id)).not.toBeNull();
    advance(23 * DAY);
    expect(await store.open(links['30d'].id)).toBeNull();
    advance(3650 * DAY);
    expect(await store.open(links.never.id)).not.toBeNull();
  });

  it('a new expiry counts from now and brings an expired link back', async () => {
    const { store, advance } = storeAt();
    const link = await store.create(U1, pinned({ expires: '1d' }));
    advance(2 * DAY);
    expect(await store.open(link.id)).toBeNull();
    const renewed = store.update(U1, link.id, { expires: '7d' });
    expect(renewed.expiresAt).toBe(link.createdAt + 2 * DAY + 7 * DAY);
    expect(await store.open(link.id)).not.toBeNull();
  });

  it('revoke ends a link at once and for good, also after a restart', async () => {
    const { store, reopen } = storeAt();
    const link = await store.create(U1, pinned());
    const kept = await store.create(U1, pinned({ sessionId: 's2' }));
    await store.revoke(U1, link.id);
    expect(await store.open(link.id)).toBeNull();
    await expect(store.revoke(U1, link.id)).rejects.toThrow('no such share link');
    const again = reopen();
    expect(await again.open(link.id)).toBeNull();
    expect((await again.open(kept.id))?.sessionId).toBe('s2');
  });

  it('another user\'s link is unknown to the owner procedures, exactly like one that never existed', async () => {
    const { store } = storeAt();
    const link = await store.create(U1, pinned());
    for (const id of [link.id, newShareId(), 'not-an-id']) {
      expect(() => store.get(U2, id)).toThrow('no such share link');
      expect(() => store.update(U2, id, { expires: '1d' })).toThrow('no such share link');
      await expect(store.revoke(U2, id)).rejects.toThrow('no such share link');
    }
    expect(store.list(U2)).toEqual([]);
    expect((await store.open(link.id))?.userId).toBe(U1);
  });

  it('lists the owner\'s links newest first, by session, and drops a deleted session\'s', async () => {
    const { store, advance } = storeAt();
    const a = await store.create(U1, pinned());
    advance(1);
    const b = await store.create(U1, pinned({ sessionId: 's2', scope: 'turn' }));
    await store.create(U2, pinned());
    expect(store.list(U1).map((l) => l.id)).toEqual([b.id, a.id]);
    expect(store.list(U1, 's2').map((l) => l.id)).toEqual([b.id]);
    expect(await store.revokeSession(U1, 's2')).toBe(1);
    expect(await store.open(b.id)).toBeNull();
    expect(store.list(U1).map((l) => l.id)).toEqual([a.id]);
  });

  it("keeps each user's links in their own folder (a move carries them), 0600, with only id → owner in the index", async () => {
    const { store, dir } = storeAt();
    const mine = await store.create(U1, pinned());
    const theirs = await store.create(U2, pinned());
    const file = join(dir, 'users', U1, 'share-links.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { links: { id: string }[] }).links.map((l) => l.id)).toEqual([mine.id]);
    const index = join(dir, 'auth', 'share-index.json');
    expect(statSync(index).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(index, 'utf8'))).toEqual({ version: 1, owners: { [mine.id]: U1, [theirs.id]: U2 } });
    // The user's folder moved away (a move's clean-up): their link no longer opens here; another's still does.
    rmSync(join(dir, 'users', U1), { recursive: true });
    expect(await store.open(mine.id)).toBeNull();
    expect(store.list(U1)).toEqual([]);
    expect((await store.open(theirs.id))?.userId).toBe(U2);
  });

  it("links made at once by one user are all kept (each write reads the user's file again)", async () => {
    const { store } = storeAt();
    const made = await Promise.all([1, 2, 3].map((n) => store.create(U1, pinned({ sessionId: `s${n}` }))));
    expect(store.list(U1).map((l) => l.id).sort()).toEqual(made.map((l) => l.id).sort());
  });

  it('a failed write changes nothing: the link stays as it was on disk and in the index', async () => {
    const { store, dir } = storeAt();
    const link = await store.create(U1, pinned());
    // the user's folder replaced by a file: every write under it fails
    rmSync(join(dir, 'users', U1), { recursive: true });
    writeFileSync(join(dir, 'users', U1), 'not a folder');
    await expect(store.create(U1, pinned({ sessionId: 's9' }))).rejects.toThrow();
    expect(JSON.parse(readFileSync(join(dir, 'auth', 'share-index.json'), 'utf8')).owners).toEqual({ [link.id]: U1 });
  });
});

describe("the old instance-wide share-links.json", () => {
  it("moves into each owner's folder and the index, once, keeping links already there, then is removed", async () => {
    const dir = makeTempDir();
    const authDir = join(dir, 'auth');
    mkdirSync(authDir, { recursive: true });
    const record = (id: string, userId: string, sessionId: string) => ({ id, userId, sessionId, scope: 'session', sha: PIN.sha, turn: 2, title: null, toolCalls: true, createdAt: 1, updatedAt: 1, expiresAt: null });
    const [a, b, c] = [newShareId(), newShareId(), newShareId()];
    const oldText = JSON.stringify({ version: 1, links: [record(a, U1, 's1'), record(b, U1, 's2'), record(c, U2, 's1'), record(newShareId(), '../../x', 's1')] });
    writeFileSync(join(authDir, 'share-links.json'), oldText);
    const index = new FileShareIndex(authDir);
    const store = new ShareLinkStore(dir, index, () => 2);
    const migrated = migrateShareLinks(authDir, dir)!;
    expect(migrated.entries).toEqual([{ id: a, userId: U1 }, { id: b, userId: U1 }, { id: c, userId: U2 }]);
    index.addSync(migrated.entries);
    migrated.finish();
    expect(existsSync(join(authDir, 'share-links.json'))).toBe(false);
    expect((await store.open(a))?.sessionId).toBe('s1');
    expect((await store.open(c))?.userId).toBe(U2);
    expect(store.list(U1).map((l) => l.id).sort()).toEqual([a, b].sort());
    // Killed before the old file went: the next start runs it again, and nothing doubles.
    writeFileSync(join(authDir, 'share-links.json'), oldText);
    const again = migrateShareLinks(authDir, dir)!;
    index.addSync(again.entries);
    again.finish();
    expect(store.list(U1)).toHaveLength(2);
    expect(store.list(U2)).toHaveLength(1);
    expect(migrateShareLinks(authDir, dir)).toBeNull();
    // A new start reads the same index from its file.
    expect((await new ShareLinkStore(dir, new FileShareIndex(authDir), () => 2).open(b))?.sessionId).toBe('s2');
  });
});

describe('OPENPROGRAM_SHARING', () => {
  it('defaults to login; an unknown value is login too, with a warning', () => {
    expect(parseSharingMode(undefined)).toEqual({ mode: 'login', warning: null });
    expect(parseSharingMode(' Public ')).toEqual({ mode: 'public', warning: null });
    expect(parseSharingMode('off').mode).toBe('off');
    const wrong = parseSharingMode('pubic');
    expect(wrong.mode).toBe('login');
    expect(wrong.warning).toMatch(/not off, login or public/);
  });

  it('off opens nothing, login only signed in, public anyone', () => {
    expect([mayOpenShares('off', true), mayOpenShares('off', false)]).toEqual([false, false]);
    expect([mayOpenShares('login', true), mayOpenShares('login', false)]).toEqual([true, false]);
    expect([mayOpenShares('public', true), mayOpenShares('public', false)]).toEqual([true, true]);
  });
});

describe('the test clock', () => {
  it('is the wall clock without a file, plus the file\'s offset with one', () => {
    expect(shareClock(undefined)).toBe(Date.now);
    const file = join(dirname(makeTempDir()), 'clock');
    const clock = shareClock(file);
    expect(Math.abs(clock() - Date.now())).toBeLessThan(1000);
    writeFileSync(file, String(3 * DAY));
    expect(clock() - Date.now()).toBeGreaterThan(3 * DAY - 1000);
  });
});
