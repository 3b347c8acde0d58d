import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TRPCError } from '@trpc/server';
import type { UserRecord } from '@/lib/auth/index';

// The guard package throws outside a React server build; the shared page's renderer is what is tested.
vi.mock('server-only', () => ({}));

// The runtime reads its environment once: set it before importing anything that opens stores.
const root = mkdtempSync(join(tmpdir(), 'em-share-view-'));
const dataDir = join(root, 'data');
const clockFile = join(root, 'clock');
process.env.OPENPROGRAM_DATA_DIR = dataDir;
process.env.OPENPROGRAM_SHARING = 'public';
process.env.OPENPROGRAM_TEST_CLOCK_FILE = clockFile;
let runtime: typeof import('@/server/runtime');
let api: typeof import('@/server/api/root');

const OWNER = '0123456789abcdef';
const OTHER = 'fedcba9876543210';
const DAY = 24 * 60 * 60 * 1000;

function user(id: string): UserRecord {
  return { id, email: `${id}@unit.test`, passwordHash: 'x', admin: false, disabled: false, sessionVersion: 1, createdAt: 0, updatedAt: 0 };
}
const callerFor = (id: string) => api.createCaller({ headers: new Headers(), user: user(id), via: 'cookie', authError: null, ip: null, responseCookies: [], answer: { headers: {} } });
const visitor = () => api.createCaller({ headers: new Headers(), user: null, via: null, authError: null, ip: null, responseCookies: [], answer: { headers: {} } });

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected the call to fail');
}

async function turn(sessionId: string, question: string, answer: string, extra?: () => Promise<void>) {
  const owner = callerFor(OWNER);
  await owner.turn.begin({ sessionId });
  await owner.message.append({ sessionId, message: { role: 'user', content: question } });
  await owner.message.append({ sessionId, message: { role: 'assistant', content: answer } });
  await extra?.();
  await owner.turn.finalize({ sessionId });
}

const contents = (view: { messages: Array<{ content: string }> }) => view.messages.map((m) => m.content);

beforeAll(async () => {
  runtime = await import('@/server/runtime');
  api = await import('@/server/api/root');
  const owner = callerFor(OWNER);
  await owner.session.create({ id: 's', title: 'Shared one' });
  await owner.turn.begin({ sessionId: 's' });
  const system = await owner.message.append({ sessionId: 's', message: { role: 'system', content: 'SYSTEM-SECRET' } });
  await owner.message.append({ sessionId: 's', message: { role: 'user', content: 'Q1', parentId: system.id } });
  await owner.message.append({ sessionId: 's', message: { role: 'assistant', content: 'A1' } });
  await owner.message.append({ sessionId: 's', message: { role: 'user', content: 'OTHER-BRANCH', parentId: system.id } });
  await owner.turn.finalize({ sessionId: 's' });
  await turn('s', 'Q2', 'A2');
});

afterAll(async () => {
  await (await import('@/server/render/render-pool')).renderPool().close();
  for (const id of [OWNER, OTHER]) await (await runtime.getUserStore(id)).close();
  rmSync(root, { recursive: true, force: true });
});

describe('what a share link shows', () => {
  it('a pinned link: the branch at its commit, user and assistant only; a later turn never; Update moves it', async () => {
    const owner = callerFor(OWNER);
    const link = await owner.share.create({ sessionId: 's' });
    expect(link).toMatchObject({ scope: 'session', turn: 2, path: `/s/${link.id}`, sessionTitle: 'Shared one' });
    expect(link).not.toHaveProperty('userId');
    await turn('s', 'Q3', 'A3');
    const view = await visitor().share.view({ id: link.id });
    expect(contents(view)).toEqual(['Q1', 'A1', 'Q2', 'A2']);
    expect(view).toMatchObject({ title: 'Shared one', scope: 'session', turn: 2 });
    expect(JSON.stringify(view)).not.toMatch(/SYSTEM-SECRET|OTHER-BRANCH|"s"|unit\.test/);
    const moved = await owner.share.update({ id: link.id, toLatest: true });
    expect(moved.id).toBe(link.id);
    expect(contents(await visitor().share.view({ id: link.id }))).toEqual(['Q1', 'A1', 'Q2', 'A2', 'Q3', 'A3']);
  });

  it('a live link follows the newest turn; pinned again, it stays', async () => {
    const owner = callerFor(OWNER);
    const link = await owner.share.create({ sessionId: 's', scope: 'live' });
    const before = contents(await visitor().share.view({ id: link.id }));
    await turn('s', 'Q-live', 'A-live');
    expect(contents(await visitor().share.view({ id: link.id }))).toEqual([...before, 'Q-live', 'A-live']);
    await owner.share.update({ id: link.id, live: false });
    await turn('s', 'Q-after', 'A-after');
    expect(contents(await visitor().share.view({ id: link.id })).at(-1)).toBe('A-live');
  });

  it('a single turn: only what it added, tool calls hidden when asked', async () => {
    const owner = callerFor(OWNER);
    const first = await owner.share.create({ sessionId: 's', scope: 'turn', turn: 1 });
    expect(contents(await visitor().share.view({ id: first.id }))).toEqual(['Q1', 'A1']);
    const second = await owner.share.create({ sessionId: 's', scope: 'turn', turn: 2, toolCalls: false });
    expect(contents(await visitor().share.view({ id: second.id }))).toEqual(['Q2', 'A2']);
    expect(await failure(owner.share.create({ sessionId: 's', scope: 'turn', turn: 99 }))).toEqual({ code: 'NOT_FOUND', message: 'no turn 99 in this session' });
  });

  it('a session with no finished turn cannot be pinned, and nothing is written', async () => {
    const owner = callerFor(OWNER);
    await owner.session.create({ id: 'empty' });
    const count = (await owner.share.list()).links.length;
    expect(await failure(owner.share.create({ sessionId: 'empty' }))).toEqual({ code: 'BAD_REQUEST', message: 'this session has no finished turn yet: there is nothing to share' });
    expect((await owner.share.list()).links).toHaveLength(count);
  });

  it('revoked, expired, another user\'s session or a deleted one: the same NOT_FOUND as a link never made', async () => {
    const owner = callerFor(OWNER);
    const never = await failure(visitor().share.view({ id: `${'A'.repeat(21)}w` }));
    expect(never).toEqual({ code: 'NOT_FOUND', message: 'no such share link' });
    expect(await failure(visitor().share.view({ id: 'garbage' }))).toEqual(never);

    const revoked = await owner.share.create({ sessionId: 's' });
    await owner.share.revoke({ id: revoked.id });
    expect(await failure(visitor().share.view({ id: revoked.id }))).toEqual(never);

    const expiring = await owner.share.create({ sessionId: 's', expires: '1d' });
    expect((await visitor().share.view({ id: expiring.id })).expiresAt).toBe(expiring.expiresAt);
    writeFileSync(clockFile, String(DAY + 1));
    expect(await failure(visitor().share.view({ id: expiring.id }))).toEqual(never);
    expect((await owner.share.list({ sessionId: 's' })).links.find((l) => l.id === expiring.id)?.expired).toBe(true);
    writeFileSync(clockFile, '0');

    // Another user cannot see, update or revoke it.
    const other = callerFor(OTHER);
    expect((await other.share.list()).links).toEqual([]);
    expect(await failure(other.share.revoke({ id: expiring.id }))).toEqual(never);
    expect(await failure(other.share.update({ id: expiring.id, expires: 'never' }))).toEqual(never);

    await owner.session.create({ id: 'doomed' });
    await turn('doomed', 'q', 'a');
    const doomed = await owner.share.create({ sessionId: 'doomed' });
    await owner.session.delete({ id: 'doomed' });
    expect(await failure(visitor().share.view({ id: doomed.id }))).toEqual(never);
    expect((await owner.share.list()).links.some((l) => l.id === doomed.id)).toBe(false);
  });

  it('an API token cannot make or change a link (it would outlive the token), and can list and revoke them', async () => {
    const viaToken = api.createCaller({ headers: new Headers(), user: user(OWNER), via: 'token', authError: null, ip: null, responseCookies: [], answer: { headers: {} } });
    const before = (await callerFor(OWNER).share.list({ sessionId: 's' })).links.length;
    expect(await failure(viaToken.share.create({ sessionId: 's', expires: 'never' }))).toEqual({ code: 'FORBIDDEN', message: 'share links are made and changed from a signed-in page, not with an API token' });
    const made = await callerFor(OWNER).share.create({ sessionId: 's', expires: '1d' });
    expect((await failure(viaToken.share.update({ id: made.id, expires: 'never' }))).code).toBe('FORBIDDEN');
    expect((await viaToken.share.list({ sessionId: 's' })).links).toHaveLength(before + 1);
    expect((await callerFor(OWNER).share.list({ sessionId: 's' })).links.find((link) => link.id === made.id)?.expiresAt).toBe(made.expiresAt);
    await viaToken.share.revoke({ id: made.id });
    expect((await callerFor(OWNER).share.list({ sessionId: 's' })).links).toHaveLength(before);
  });
});

describe('a pinned link and the title (issue 27 item 10)', () => {
  it('shows the title it was pinned with: a rename after the pin does not show, one before it does; a live link follows it', async () => {
    const owner = callerFor(OWNER);
    await owner.session.create({ id: 'titled', title: 'Title when pinned' });
    await turn('titled', 'tq1', 'ta1');
    const pinned = await owner.share.create({ sessionId: 'titled' });
    const single = await owner.share.create({ sessionId: 'titled', scope: 'turn', turn: 1 });
    const live = await owner.share.create({ sessionId: 'titled', scope: 'live' });
    await owner.session.update({ id: 'titled', title: 'Renamed after the pin' });
    expect((await visitor().share.view({ id: pinned.id })).title).toBe('Title when pinned');
    expect((await visitor().share.view({ id: single.id })).title).toBe('Title when pinned');
    expect((await visitor().share.view({ id: live.id })).title).toBe('Renamed after the pin');
    // A later turn commits the new title: the link moved to it shows it, the pinned one still not.
    await turn('titled', 'tq2', 'ta2');
    expect((await visitor().share.view({ id: pinned.id })).title).toBe('Title when pinned');
    await owner.share.update({ id: pinned.id, toLatest: true });
    expect((await visitor().share.view({ id: pinned.id })).title).toBe('Renamed after the pin');
    // Renamed, then shared (or Update pressed) before any turn: the link shows the title its owner sees.
    await owner.session.update({ id: 'titled', title: 'Renamed, then shared' });
    const renamedFirst = await owner.share.create({ sessionId: 'titled' });
    expect((await visitor().share.view({ id: renamedFirst.id })).title).toBe('Renamed, then shared');
    await owner.share.update({ id: pinned.id, toLatest: true });
    expect((await visitor().share.view({ id: pinned.id })).title).toBe('Renamed, then shared');
  });
});

describe('the shared page: paged, rendered as the user who made the link (issue 27 item 4)', () => {
  beforeAll(async () => {
    await callerFor(OWNER).session.create({ id: 'long', title: 'Long one' });
    for (let i = 1; i <= 3; i++) await turn('long', `LQ${i} **bold** ${Math.random()}`, `LA${i} _it_ ${Math.random()}`);
  });

  it('pages like message.branch: the newest `limit`, then the ones before; a `before` it does not show is NOT_FOUND', async () => {
    const link = await callerFor(OWNER).share.create({ sessionId: 'long' });
    const all = (await visitor().share.view({ id: link.id })).messages;
    expect(all.map((m) => m.content.slice(0, 3))).toEqual(['LQ1', 'LA1', 'LQ2', 'LA2', 'LQ3', 'LA3']);
    const newest = await visitor().share.view({ id: link.id, limit: 4 });
    expect(newest.messages.map((m) => m.id)).toEqual(all.slice(2).map((m) => m.id));
    expect(newest.olderId).toBe(all[1]!.id);
    const older = await visitor().share.view({ id: link.id, limit: 4, before: newest.messages[0]!.id });
    expect(older.messages.map((m) => m.id)).toEqual(all.slice(0, 2).map((m) => m.id));
    expect(older.olderId).toBeNull();
    expect((await visitor().share.view({ id: link.id })).olderId).toBeNull();
    expect(await failure(visitor().share.view({ id: link.id, limit: 4, before: 'not-shown-here' }))).toEqual({ code: 'NOT_FOUND', message: 'no such message in this shared conversation' });
    expect((await failure(visitor().share.view({ id: link.id, limit: 0 }))).code).toBe('BAD_REQUEST');
  });

  it('two links to one session render as their owner: one share of the render pool, one cache', { timeout: 120_000 }, async () => {
    const { renderPool } = await import('@/server/render/render-pool');
    const { renderSharedPage, shareRenderIdentity } = await import('./share-render');
    const owner = callerFor(OWNER);
    const [first, second] = [await owner.share.create({ sessionId: 'long' }), await owner.share.create({ sessionId: 'long' })];
    expect(shareRenderIdentity(OWNER).owner).toBe(OWNER);
    const render = vi.spyOn(renderPool(), 'render');
    try {
      const one = await renderSharedPage(first.id, { signedIn: false }, { limit: 4 });
      const two = await renderSharedPage(second.id, { signedIn: false }, { limit: 4 });
      // One page each, Markdown rendered.
      expect(one.view.messages).toHaveLength(4);
      expect(one.bodies).toHaveLength(4);
      expect(one.bodies.every((body) => 'html' in body && /<(strong|em)>/.test(body.html))).toBe(true);
      expect(two.bodies).toEqual(one.bodies);
      // Every render queued as the owner (before: "share:<link id>", an owner per link), and the
      // second link's page came from the same cache: no render of its own.
      expect(new Set(render.mock.calls.map(([who]) => who))).toEqual(new Set([OWNER]));
      expect(render).toHaveBeenCalledTimes(4);
      expect(JSON.stringify(one.view)).not.toContain(OWNER);
    } finally {
      render.mockRestore();
    }
  });
});
