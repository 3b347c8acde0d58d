import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ApiTokenStore, tokenClaimedUserId } from './api-tokens.js';
import { sha256Hex } from './token-secret.js';
import { useTempDir } from './testing/temp-dir.js';

describe('ApiTokenStore', () => {
  const tempDir = useTempDir();

  it('stores only the sha256 of a token and authenticates it', async () => {
    const dir = tempDir();
    const store = new ApiTokenStore(dir);
    const { id, token } = await store.create('u1', { name: 'agent' });
    expect(token).toMatch(/^em_u1_[A-Za-z0-9_-]{43}$/);
    const text = readFileSync(join(dir, 'tokens.json'), 'utf8');
    expect(text).not.toContain(token);
    expect(text).toContain(sha256Hex(token));
    expect(statSync(join(dir, 'tokens.json')).mode & 0o777).toBe(0o600);
    expect(new ApiTokenStore(dir).authenticate(token)).toEqual({ userId: 'u1', tokenId: id });
    expect(store.authenticate(`${token}x`)).toBeNull();
    expect(store.authenticate('Bearer nonsense')).toBeNull();
  });

  it('records last use, written on flush', async () => {
    let now = 1_000;
    const dir = tempDir();
    const store = new ApiTokenStore(dir, () => now);
    const { token } = await store.create('u1', { name: 'agent' });
    expect(store.list('u1')[0]?.lastUsedAt).toBeNull();
    now = 2_000;
    store.authenticate(token);
    expect(store.list('u1')[0]?.lastUsedAt).toBe(2_000);
    store.flushSync();
    expect(new ApiTokenStore(dir).list('u1')[0]?.lastUsedAt).toBe(2_000);
  });

  it('writes last use in the background, and a background write older than a save is dropped, not renamed over it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let now = 1_000;
      const dir = tempDir();
      const store = new ApiTokenStore(dir, () => now);
      const first = await store.create('u1', { name: 'one' });
      now = 3_000;
      store.authenticate(first.token);
      vi.advanceTimersByTime(5_000);
      // The flush is under way (its file not yet renamed) when a token is made: the save wins.
      const second = await store.create('u1', { name: 'two' });
      // Real time for the flush to finish (or be dropped): its writes go through the thread pool.
      vi.useRealTimers();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
      const reread = new ApiTokenStore(dir);
      expect(reread.list('u1').map((entry) => entry.id)).toEqual([first.id, second.id]);
      expect(reread.list('u1').find((entry) => entry.id === first.id)?.lastUsedAt).toBe(3_000);

      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      // past the minute's grain of last use
      now = 64_000;
      store.authenticate(first.token);
      vi.advanceTimersByTime(5_000);
      vi.useRealTimers();
      await vi.waitFor(() => expect(new ApiTokenStore(dir).list('u1').find((entry) => entry.id === first.id)?.lastUsedAt).toBe(64_000), { timeout: 2_000, interval: 20 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops an expired token and refuses an expiry in the past', async () => {
    let now = 1_000;
    const store = new ApiTokenStore(tempDir(), () => now);
    const { token } = await store.create('u1', { name: 'short-lived', expiresAt: 5_000 });
    expect(store.authenticate(token)).not.toBeNull();
    now = 5_000;
    expect(store.authenticate(token)).toBeNull();
    expect(store.list('u1')[0]?.expired).toBe(true);
    await expect(store.create('u1', { name: 'x', expiresAt: 4_000 })).rejects.toThrow(/future/);
  });

  it('revokes at once, and only the owner can', async () => {
    const store = new ApiTokenStore(tempDir());
    const { id, token } = await store.create('u1', { name: 'agent' });
    await expect(store.revoke('u2', id)).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(store.authenticate(token)).not.toBeNull();
    await store.revoke('u1', id);
    expect(store.authenticate(token)).toBeNull();
    expect(store.list('u1')).toEqual([]);
  });

  it('lists a user its own tokens only, and refuses empty names', async () => {
    const store = new ApiTokenStore(tempDir());
    await store.create('u1', { name: 'a' });
    await store.create('u2', { name: 'b' });
    expect(store.list('u1').map((t) => t.name)).toEqual(['a']);
    await expect(store.create('u1', { name: '  ' })).rejects.toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  it('names its user in the token (the route), and the user in a token cannot be swapped', async () => {
    const store = new ApiTokenStore(tempDir());
    const userId = '0123456789abcdef';
    const { token } = await store.create(userId, { name: 'agent' });
    expect(token).toMatch(/^em_0123456789abcdef_[A-Za-z0-9_-]{43}$/);
    expect(tokenClaimedUserId(token)).toBe(userId);
    expect(store.authenticate(token)?.userId).toBe(userId);
    const forged = token.replace(userId, 'fedcba9876543210');
    expect(tokenClaimedUserId(forged)).toBe('fedcba9876543210');
    expect(store.authenticate(forged)).toBeNull();
    // A token of the older shape (no user id) still has no route and still works.
    expect(tokenClaimedUserId('em_abcdefABCDEF0123456789abcdefABCDEF012345678')).toBeNull();
  });
});
