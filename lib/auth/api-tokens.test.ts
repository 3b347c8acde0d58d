import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
