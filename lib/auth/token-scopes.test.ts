import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiTokenStore } from './api-tokens.js';
import { useTempDir } from './testing/temp-dir.js';
import { TOKEN_SCOPES } from './token-scopes.js';

describe('token scopes', () => {
  const tempDir = useTempDir();

  it('keeps the scopes and project a token was made with, and says them in the list', async () => {
    const dir = tempDir();
    const store = new ApiTokenStore(dir);
    const { id } = await store.create('u1', { name: 'reader', scopes: ['read'] });
    const limited = await store.create('u1', { name: 'one project', scopes: ['write', 'read'], projectId: 'p1' });
    const reread = new ApiTokenStore(dir);
    expect(reread.accessOf(id)).toEqual({ scopes: ['read'], projectId: null });
    expect(reread.accessOf(limited.id)).toEqual({ scopes: ['read', 'write'], projectId: 'p1' });
    expect(reread.list('u1').map(({ name, scopes, projectId }) => ({ name, scopes, projectId }))).toEqual([
      { name: 'reader', scopes: ['read'], projectId: null },
      { name: 'one project', scopes: ['read', 'write'], projectId: 'p1' },
    ]);
  });

  it('gives a token stored before scopes every scope', async () => {
    const dir = tempDir();
    const { id } = await new ApiTokenStore(dir).create('u1', { name: 'old' });
    const file = join(dir, 'tokens.json');
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { tokens: Record<string, unknown>[] };
    for (const token of parsed.tokens) {
      delete token['scopes'];
      delete token['projectId'];
    }
    writeFileSync(file, JSON.stringify(parsed));
    expect(new ApiTokenStore(dir).accessOf(id)).toEqual({ scopes: TOKEN_SCOPES, projectId: null });
  });

  it('refuses no scope, an unknown scope, and a project-limited proxy or import token, writing nothing', async () => {
    const dir = tempDir();
    const store = new ApiTokenStore(dir);
    await expect(store.create('u1', { name: 'none', scopes: [] })).rejects.toThrow(/at least one/);
    await expect(store.create('u1', { name: 'admin', scopes: ['read', 'admin'] })).rejects.toThrow(/unknown scope "admin"/);
    await expect(store.create('u1', { name: 'agent', scopes: ['proxy'], projectId: 'p1' })).rejects.toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringMatching(/not proxy/) }),
    );
    expect(store.list('u1')).toEqual([]);
  });

  it('moves last use at most once a minute, so a busy token is not a write per call', async () => {
    let now = 1_000;
    const dir = tempDir();
    const store = new ApiTokenStore(dir, () => now);
    const { token } = await store.create('u1', { name: 'busy' });
    store.authenticate(token);
    now = 59_000;
    store.authenticate(token);
    expect(store.list('u1')[0]?.lastUsedAt).toBe(1_000);
    now = 61_000;
    store.authenticate(token);
    expect(store.list('u1')[0]?.lastUsedAt).toBe(61_000);
    store.flushSync();
  });
});
