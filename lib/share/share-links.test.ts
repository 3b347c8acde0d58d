import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ShareLinkStore, type CreateShareInput } from './share-links';
import { isShareId, newShareId, SHARE_ID_PATTERN } from './share-id';
import { mayOpenShares, parseSharingMode } from './sharing-mode';
import { shareClock } from './clock';
import { writeFileSync } from 'node:fs';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function makeTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'share-links-'));
  dirs.push(dir);
  return join(dir, 'auth');
}

const DAY = 24 * 60 * 60 * 1000;
const PIN = { sha: 'a'.repeat(40), turn: 2 };
const NEWER = { sha: 'b'.repeat(40), turn: 3 };

function storeAt(start = 1_000_000) {
  const dir = makeTempDir();
  let now = start;
  const store = new ShareLinkStore(dir, () => now);
  return { dir, store, advance: (ms: number) => (now += ms), reopen: () => new ShareLinkStore(dir, () => now) };
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
  it('pins a link to the turn commit it was made at; update moves the same link to a newer one', () => {
    const { store, advance } = storeAt();
    const link = store.create('u1', pinned());
    expect(link).toMatchObject({ sessionId: 's1', scope: 'session', sha: PIN.sha, turn: 2, expiresAt: null, expired: false });
    expect(store.open(link.id)?.sha).toBe(PIN.sha);
    advance(1000);
    const moved = store.update('u1', link.id, { pin: NEWER });
    expect(moved.id).toBe(link.id);
    expect(store.open(link.id)).toMatchObject({ sha: NEWER.sha, turn: 3, updatedAt: link.createdAt + 1000 });
  });

  it('a live link has no pin until it is pinned again', () => {
    const { store } = storeAt();
    const live = store.create('u1', pinned({ scope: 'live', pin: null }));
    expect(live).toMatchObject({ scope: 'live', sha: null, turn: null });
    expect(() => store.update('u1', live.id, { live: false })).toThrow(/needs a turn commit/);
    expect(store.open(live.id)?.scope).toBe('live'); // the refused update changed nothing
    expect(store.update('u1', live.id, { live: false, pin: NEWER })).toMatchObject({ scope: 'session', sha: NEWER.sha });
    expect(store.update('u1', live.id, { live: true })).toMatchObject({ scope: 'live', sha: null });
  });

  it('refuses a pinned link of a session with no finished turn, and writes nothing', () => {
    const { store, dir } = storeAt();
    expect(() => store.create('u1', pinned({ pin: null }))).toThrow(/no finished turn/);
    expect(() => statSync(join(dir, 'share-links.json'))).toThrow();
  });

  it('expires after 1, 7 or 30 days, to the millisecond; never means never', () => {
    const { store, advance } = storeAt();
    const links = { '1d': store.create('u1', pinned({ expires: '1d' })), '7d': store.create('u1', pinned({ expires: '7d' })), '30d': store.create('u1', pinned({ expires: '30d' })), never: store.create('u1', pinned()) };
    advance(DAY - 1);
    expect(store.open(links['1d'].id)).not.toBeNull();
    advance(1);
    expect(store.open(links['1d'].id)).toBeNull();
    expect(store.list('u1').find((l) => l.id === links['1d'].id)?.expired).toBe(true);
    advance(6 * DAY);
    expect(store.open(links['7d'].id)).toBeNull();
    expect(store.open(links['30d'].id)).not.toBeNull();
    advance(23 * DAY);
    expect(store.open(links['30d'].id)).toBeNull();
    advance(3650 * DAY);
    expect(store.open(links.never.id)).not.toBeNull();
  });

  it('a new expiry counts from now and brings an expired link back', () => {
    const { store, advance } = storeAt();
    const link = store.create('u1', pinned({ expires: '1d' }));
    advance(2 * DAY);
    expect(store.open(link.id)).toBeNull();
    const renewed = store.update('u1', link.id, { expires: '7d' });
    expect(renewed.expiresAt).toBe(link.createdAt + 2 * DAY + 7 * DAY);
    expect(store.open(link.id)).not.toBeNull();
  });

  it('revoke ends a link at once and for good, also after a restart', () => {
    const { store, reopen } = storeAt();
    const link = store.create('u1', pinned());
    const kept = store.create('u1', pinned({ sessionId: 's2' }));
    store.revoke('u1', link.id);
    expect(store.open(link.id)).toBeNull();
    expect(() => store.revoke('u1', link.id)).toThrow('no such share link');
    const again = reopen();
    expect(again.open(link.id)).toBeNull();
    expect(again.open(kept.id)?.sessionId).toBe('s2');
  });

  it('another user\'s link is unknown to the owner procedures, exactly like one that never existed', () => {
    const { store } = storeAt();
    const link = store.create('u1', pinned());
    for (const id of [link.id, newShareId(), 'not-an-id']) {
      expect(() => store.get('u2', id)).toThrow('no such share link');
      expect(() => store.update('u2', id, { expires: '1d' })).toThrow('no such share link');
      expect(() => store.revoke('u2', id)).toThrow('no such share link');
    }
    expect(store.list('u2')).toEqual([]);
    expect(store.open(link.id)?.userId).toBe('u1');
  });

  it('lists the owner\'s links newest first, by session, and drops a deleted session\'s', () => {
    const { store, advance } = storeAt();
    const a = store.create('u1', pinned());
    advance(1);
    const b = store.create('u1', pinned({ sessionId: 's2', scope: 'turn' }));
    store.create('u2', pinned());
    expect(store.list('u1').map((l) => l.id)).toEqual([b.id, a.id]);
    expect(store.list('u1', 's2').map((l) => l.id)).toEqual([b.id]);
    expect(store.revokeSession('u1', 's2')).toBe(1);
    expect(store.open(b.id)).toBeNull();
    expect(store.list('u1').map((l) => l.id)).toEqual([a.id]);
  });

  it('keeps the file 0600, one record per link, and a failed write changes nothing in memory', () => {
    const { store, dir } = storeAt();
    const link = store.create('u1', pinned());
    const file = join(dir, 'share-links.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { links: unknown[] }).links).toHaveLength(1);
    // the auth folder replaced by a file: the next write fails
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'not a folder');
    expect(() => store.create('u1', pinned({ sessionId: 's9' }))).toThrow();
    expect(() => store.revoke('u1', link.id)).toThrow();
    expect(store.list('u1').map((l) => l.id)).toEqual([link.id]);
    expect(store.open(link.id)).not.toBeNull();
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
