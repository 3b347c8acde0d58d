import { describe, expect, it } from 'vitest';
import { DAY_SECONDS, TRASH_KEEP_DAYS, type SessionStore } from '../store/index.js';
import { manualClock, tempStoresPerTest } from '../store/testing/temp-store.js';
import { effectiveRetention, RETENTION_OFF, retentionPolicySchema } from './retention-policy.js';
import { sweepRetention } from './retention-sweep.js';

const fresh = tempStoresPerTest();

/** Sessions whose last activity is `daysAgo` days before the clock's start (the store writes them with that clock). */
async function sessionsAged(store: SessionStore, clock: ReturnType<typeof manualClock>, ages: Record<string, number>): Promise<number> {
  const start = clock.now();
  const oldest = Math.max(...Object.values(ages));
  clock.advance(-oldest * DAY_SECONDS);
  for (const [id, daysAgo] of Object.entries(ages).sort((a, b) => b[1] - a[1])) {
    clock.advance(start - daysAgo * DAY_SECONDS - clock.now());
    await store.createSession({ id });
    await store.appendMessage(id, { role: 'user', content: `message of ${id}` });
  }
  clock.advance(start - clock.now());
  return start;
}

const at = (now: number) => ({ now, purgeNow: now });

describe('the retention sweep', () => {
  it('off (the default): nothing moves, however old', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    const now = await sessionsAged(store, clock, { ancient: 3_000, old: 400 });
    await store.setArchived('old', true);
    expect(await sweepRetention(store, RETENTION_OFF, at(now + 3_000 * DAY_SECONDS))).toEqual({ archived: [], trashed: [], purged: [] });
    expect(store.listSessions({ scope: 'all' }).rows.map((row) => [row.id, row.archived]).sort()).toEqual([['ancient', false], ['old', true]]);
    expect(store.trash.list()).toEqual([]);
  });

  it('archives exactly the sessions untouched past the limit, and leaves pinned ones alone', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    const now = await sessionsAged(store, clock, { stale: 31, edge: 30, fresh: 29, pinned: 90 });
    await store.updateSession('pinned', { pinned: true });
    const result = await sweepRetention(store, { archiveAfterDays: 30 }, at(now));
    expect(result.archived.sort()).toEqual(['edge', 'stale']);
    expect(result.trashed).toEqual([]);
    const archived = store.listSessions({ scope: 'archived' }).rows.map((row) => row.id).sort();
    expect(archived).toEqual(['edge', 'stale']);
    // Archiving keeps the session's place: its last activity does not move (operations.zh.md, 归档).
    expect(store.getRow('stale')?.updatedAt).toBe((now - 31 * DAY_SECONDS) * 1000);
  });

  it('trashes sessions archived for the limit, counted from when a sweep first saw them archived', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    const now = await sessionsAged(store, clock, { long: 500, recent: 1 });
    await store.setArchived('long', true);
    const policy = { archiveAfterDays: 100, deleteArchivedAfterDays: 7 };
    // An archive older than the limit is not trashed the day retention is turned on.
    expect(await sweepRetention(store, policy, at(now))).toMatchObject({ archived: [], trashed: [] });
    expect(await sweepRetention(store, policy, at(now + 6 * DAY_SECONDS))).toMatchObject({ trashed: [] });
    expect(await sweepRetention(store, policy, at(now + 7 * DAY_SECONDS))).toMatchObject({ trashed: ['long'] });
    expect(store.hasSession('long')).toBe(false);
    expect(store.trash.list().map((row) => row.id)).toEqual(['long']);
    expect(store.hasSession('recent')).toBe(true);
  });

  it('a session unarchived meanwhile starts its count again', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    const now = await sessionsAged(store, clock, { back: 10 });
    await store.setArchived('back', true);
    const policy = { deleteArchivedAfterDays: 5 };
    await sweepRetention(store, policy, at(now));
    await store.setArchived('back', false);
    await sweepRetention(store, policy, at(now + 3 * DAY_SECONDS));
    await store.setArchived('back', true);
    expect(await sweepRetention(store, policy, at(now + 6 * DAY_SECONDS))).toMatchObject({ trashed: [] });
    expect(await sweepRetention(store, policy, at(now + 11 * DAY_SECONDS))).toMatchObject({ trashed: ['back'] });
  });

  it('purges the trash past its 30 days by the real clock only, and only while deletion is on', async () => {
    const clock = manualClock();
    const { store } = await fresh({ now: clock.now });
    const now = await sessionsAged(store, clock, { gone: 1 });
    await store.trash.moveToTrash('gone');
    const later = now + TRASH_KEEP_DAYS * DAY_SECONDS;
    // An "as of" date past the purge date with the real clock before it: kept.
    expect(await sweepRetention(store, { deleteArchivedAfterDays: 1 }, { now: later, purgeNow: now })).toMatchObject({ purged: [] });
    expect(await sweepRetention(store, { archiveAfterDays: 1 }, at(later))).toMatchObject({ purged: [] });
    expect(store.trash.list().map((row) => row.id)).toEqual(['gone']);
    expect(await sweepRetention(store, { deleteArchivedAfterDays: 1 }, at(later))).toMatchObject({ purged: ['gone'] });
    expect(store.trash.list()).toEqual([]);
  });
});

describe('the policy', () => {
  it('is the user’s own when they chose one, "off" included; else the instance default; else off', () => {
    expect(effectiveRetention({ archiveAfterDays: 9 }, { archiveAfterDays: 30, deleteArchivedAfterDays: 30 })).toEqual({ policy: { archiveAfterDays: 9 }, from: 'user' });
    expect(effectiveRetention({}, { archiveAfterDays: 30 })).toEqual({ policy: {}, from: 'user' });
    expect(effectiveRetention(null, { archiveAfterDays: 30 })).toEqual({ policy: { archiveAfterDays: 30 }, from: 'instance' });
    expect(effectiveRetention(null, null)).toEqual({ policy: {}, from: 'instance' });
  });

  it('refuses days that are not whole, positive and at most a hundred years, with the field named', () => {
    for (const bad of [{ archiveAfterDays: 0 }, { archiveAfterDays: 1.5 }, { deleteArchivedAfterDays: 36_501 }, { archiveAfterDays: '3' }, { other: 1 }]) {
      expect(retentionPolicySchema.safeParse(bad).success).toBe(false);
    }
    expect(retentionPolicySchema.safeParse({ archiveAfterDays: 0 }).error?.issues[0]?.message).toBe('archiveAfterDays must be at least 1 day');
  });
});
