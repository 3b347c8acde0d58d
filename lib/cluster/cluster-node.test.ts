import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from './db.js';
import { startClusterNode, type ClusterNode } from './node.js';
import { loadUsers } from './pg-auth-backend.js';
import { ShardConflictError } from './shard-directory-port.js';
import { ShardDirectory } from './shard-directory.js';
import { startTestPostgres, type TestPostgres } from './testing/postgres.js';

/** Waits for a replica to hear a control message (delivered in milliseconds on loopback). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('cluster mode on a real Postgres', () => {
  let postgres: TestPostgres;
  let scratch: string;
  let a: ClusterNode;
  let b: ClusterNode;
  let pool: Pool;

  const node = (id: string, weight: number) =>
    startClusterNode(
      { databaseUrl: postgres.url, instanceId: id, instanceUrl: `http://127.0.0.1:${id === 'node-a' ? 1 : 2}`, weight },
      { authDir: join(scratch, id, 'auth') },
    );

  beforeAll(async () => {
    postgres = await startTestPostgres({ portRange: [5010, 5019] });
    scratch = mkdtempSync(join(tmpdir(), 'cluster-core-unit-'));
    a = await node('node-a', 1);
    b = await node('node-b', 1);
    pool = createPool(postgres.url, 2);
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await pool?.end();
    postgres?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('shares one cookie secret between instances', () => {
    expect(a.auth.secret.length).toBeGreaterThanOrEqual(32);
    expect(b.auth.secret).toBe(a.auth.secret);
  });

  it('writes a user to Postgres first, places it, and every replica reads it synchronously', async () => {
    const user = await a.auth.users.create({ email: 'ada@x.org', password: 'password-1', admin: true });
    // The writer's own replica has it at once, owner included.
    expect(a.auth.users.get(user.id)?.email).toBe('ada@x.org');
    expect(a.ownership.ownerOf(user.id)?.epoch).toBe(1);
    const { rows } = await pool.query('SELECT email FROM auth_user WHERE id = $1', [user.id]);
    expect(rows).toEqual([{ email: 'ada@x.org' }]);
    await eventually(() => b.auth.users.get(user.id) !== undefined && b.ownership.ownerOf(user.id) !== null, 'the user on node-b');
    expect(b.ownership.ownerOf(user.id)).toEqual(a.ownership.ownerOf(user.id));
    // Sign-in works on the other instance: the hash came through Postgres.
    expect(await b.auth.signIn('ada@x.org', 'password-1', '10.0.0.1')).toMatchObject({ ok: true });
  });

  it('refuses an email taken on another instance, and writes nothing', async () => {
    await a.auth.users.create({ email: 'bob@x.org', password: 'password-1' });
    // node-b may not have heard yet: Postgres's unique email decides.
    await expect(b.auth.users.create({ email: 'bob@x.org', password: 'password-2' })).rejects.toMatchObject({ code: 'CONFLICT' });
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM auth_user WHERE email = 'bob@x.org'");
    expect(rows[0].n).toBe(1);
  });

  it('ends a disabled user\'s sign-ins on every instance at once, and tells the streams', async () => {
    const user = await a.auth.users.create({ email: 'carol@x.org', password: 'password-1' });
    await eventually(() => b.auth.users.get(user.id) !== undefined, 'carol on node-b');
    expect(b.auth.sessionUser(user.id, 1)).not.toBeNull();
    const dropped: string[] = [];
    b.auth.users.onAccessChange((id) => dropped.push(id));
    await a.auth.users.setDisabled(user.id, true);
    await eventually(() => dropped.includes(user.id), 'the access change on node-b');
    expect(b.auth.sessionUser(user.id, 1)).toBeNull();
    await eventually(() => b.auth.users.get(user.id)?.disabled === true, 'the reloaded row');
    expect(await b.auth.signIn('carol@x.org', 'password-1', null)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('authenticates a token made on one instance on the other, until it is revoked there', async () => {
    const user = await a.auth.users.create({ email: 'dan@x.org', password: 'password-1' });
    const { id, token } = await a.auth.tokens.create(user.id, { name: 'agent' });
    expect(token.startsWith(`em_${user.id}_`)).toBe(true);
    const { rows } = await pool.query('SELECT hash FROM auth_token WHERE id = $1', [id]);
    expect(JSON.stringify(rows)).not.toContain(token);
    await eventually(() => b.auth.authenticateToken(token) !== null, 'the token on node-b');
    await b.auth.tokens.revoke(user.id, id);
    expect(b.auth.authenticateToken(token)).toBeNull();
    await eventually(() => a.auth.authenticateToken(token) === null, 'the revocation on node-a');
  });

  it('counts failed sign-ins across instances (a guess may reach any of them)', async () => {
    await a.auth.users.create({ email: 'eve@x.org', password: 'password-1' });
    for (let i = 0; i < 5; i += 1) {
      expect(await a.auth.signIn('eve@x.org', 'wrong-wrong', '10.9.9.9')).toEqual({ ok: false, reason: 'invalid' });
      expect(await b.auth.signIn('eve@x.org', 'wrong-wrong', '10.9.9.9')).toEqual({ ok: false, reason: 'invalid' });
    }
    // Ten failures from one address for one email, split over two instances: the pair is locked everywhere.
    expect(await b.auth.signIn('eve@x.org', 'password-1', '10.9.9.9')).toMatchObject({ ok: false, reason: 'rate_limited' });
    expect(await a.auth.signIn('eve@x.org', 'password-1', '10.9.9.9')).toMatchObject({ ok: false, reason: 'rate_limited' });
    const pair = await a.auth.signIn('eve@x.org', 'password-1', '10.9.9.9');
    expect(pair.ok === false && pair.reason === 'rate_limited' && pair.retryAfterMs).toBeGreaterThan(60_000);
    // From another address the account is only spaced out (one try per 5 s), never locked.
    const elsewhere = await a.auth.signIn('eve@x.org', 'password-1', '10.1.1.1');
    expect(elsewhere.ok === false && elsewhere.reason === 'rate_limited' && elsewhere.retryAfterMs).toBeLessThanOrEqual(5_000);
  });

  it('places 50 concurrent new users by weight, as if one by one', async () => {
    const directory = new ShardDirectory(pool);
    await pool.query("UPDATE instance SET weight = CASE id WHEN 'node-a' THEN 1 ELSE 2 END");
    await pool.query('DELETE FROM user_shard');
    const ids = Array.from({ length: 50 }, (_, i) => `place${String(i).padStart(11, '0')}`);
    const owners = await Promise.all(ids.map((id) => directory.place(id)));
    const counts = new Map<string, number>();
    for (const owner of owners) counts.set(owner.shard, (counts.get(owner.shard) ?? 0) + 1);
    // Weight 1 : 2 over 50 users: 17 and 33 (one by one, each on the lowest users per weight).
    expect(Object.fromEntries(counts)).toEqual({ 'node-a': 17, 'node-b': 33 });
    // Placing again changes nothing.
    expect(await directory.place(ids[0]!)).toEqual(owners[0]);
    await pool.query('UPDATE instance SET weight = 1');
  });

  it('flips an owner only from the owner and epoch it expects, and every replica follows', async () => {
    const directory = new ShardDirectory(pool);
    const userId = 'flip000000000001';
    const placed = await directory.place(userId);
    const other = placed.shard === 'node-a' ? 'node-b' : 'node-a';
    await expect(directory.flip(userId, other, placed.shard, placed.epoch)).rejects.toThrow(ShardConflictError);
    await expect(directory.flip(userId, placed.shard, other, placed.epoch + 5)).rejects.toThrow(ShardConflictError);
    const flipped = await directory.flip(userId, placed.shard, other, placed.epoch);
    expect(flipped).toEqual({ shard: other, epoch: placed.epoch + 1, state: 'active' });
    await expect(directory.flip(userId, placed.shard, other, placed.epoch)).rejects.toThrow(ShardConflictError);
    await eventually(() => a.ownership.ownerOf(userId)?.epoch === placed.epoch + 1 && b.ownership.ownerOf(userId)?.epoch === placed.epoch + 1, 'the flip on both');
    const mine = a.ownership.check(userId);
    expect(mine.kind).toBe(other === 'node-a' ? 'mine' : 'elsewhere');
    if (mine.kind === 'elsewhere') expect(mine.url).toBe('http://127.0.0.1:2');
  });

  // Single sign-on (DESIGN §17): a user's identity is kept in auth_user.identity.
  it('keeps a single sign-on identity with the user: read back at load, seen by another instance, kept by a role change', async () => {
    const identity = { kind: 'oidc' as const, issuer: 'https://id.example.org', subject: 'subject-1' };
    const made = await a.auth.users.createWithIdentity({ email: 'sso@x.org', admin: false, identity, passwordHash: 'scrypt$unusable' });
    const password = await a.auth.users.create({ email: 'pw@x.org', password: 'password-1' });
    const loaded = await loadUsers(pool);
    expect(loaded.users.find((u) => u.id === made.id)?.identity).toEqual(identity);
    expect(loaded.users.find((u) => u.id === password.id)).not.toHaveProperty('identity');
    await eventually(() => b.auth.users.findByIdentity(identity)?.id === made.id, 'the identity on node b');
    await a.auth.users.setAdmin(made.id, true);
    expect((await loadUsers(pool)).users.find((u) => u.id === made.id)).toMatchObject({ admin: true, identity });
  });
});
