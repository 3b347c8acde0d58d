import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from './db.js';
import { startClusterNode, type ClusterNode } from './node.js';
import { loadUsers } from './pg-auth-backend.js';
import { startTestPostgres, type TestPostgres } from './testing/postgres.js';

// Single sign-on in cluster mode (DESIGN §17): a user's identity is kept in auth_user.identity.
describe('a single sign-on identity on a real Postgres', () => {
  let postgres: TestPostgres;
  let scratch: string;
  let a: ClusterNode;
  let b: ClusterNode;
  let pool: Pool;

  beforeAll(async () => {
    postgres = await startTestPostgres({ portRange: [5060, 5069], prefix: 'oidc-identity-pg-' });
    scratch = mkdtempSync(join(tmpdir(), 'oidc-identity-unit-'));
    const node = (id: string) => startClusterNode({ databaseUrl: postgres.url, instanceId: id, instanceUrl: `http://127.0.0.1:${id === 'node-a' ? 1 : 2}`, weight: 1 }, { authDir: join(scratch, id, 'auth') });
    a = await node('node-a');
    b = await node('node-b');
    pool = createPool(postgres.url, 2);
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await pool?.end();
    postgres?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('is written with the user, read back at load and seen by another instance; a password user has none', async () => {
    const identity = { kind: 'oidc' as const, issuer: 'https://id.example.org', subject: 'subject-1' };
    const made = await a.auth.users.createWithIdentity({ email: 'ada@example.org', admin: false, identity, passwordHash: 'scrypt$unusable' });
    const password = await a.auth.users.create({ email: 'bo@example.org', password: 'password-1' });
    const loaded = await loadUsers(pool);
    expect(loaded.users.find((u) => u.id === made.id)?.identity).toEqual(identity);
    expect(loaded.users.find((u) => u.id === password.id)).not.toHaveProperty('identity');
    const deadline = Date.now() + 5_000;
    while (!b.auth.users.findByIdentity(identity) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(b.auth.users.findByIdentity(identity)?.id).toBe(made.id);
    // A role change keeps it.
    await a.auth.users.setAdmin(made.id, true);
    expect((await loadUsers(pool)).users.find((u) => u.id === made.id)).toMatchObject({ admin: true, identity });
  });
});
