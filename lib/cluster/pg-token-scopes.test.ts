import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_SCOPES } from '../auth/index.js';
import { createPool, type Pool } from './db.js';
import { startClusterNode, type ClusterNode } from './node.js';
import { startTestPostgres, type TestPostgres } from './testing/postgres.js';

// DESIGN §17 in cluster mode: a token's scopes and project are columns of auth_token, read by every instance.
describe('token scopes on a real Postgres', () => {
  let postgres: TestPostgres;
  let scratch: string;
  let node: ClusterNode;
  let pool: Pool;

  beforeAll(async () => {
    postgres = await startTestPostgres({ portRange: [5180, 5189] });
    scratch = mkdtempSync(join(tmpdir(), 'pg-token-scopes-'));
    node = await startClusterNode({ databaseUrl: postgres.url, instanceId: 'node-a', instanceUrl: 'http://127.0.0.1:1', weight: 1 }, { authDir: join(scratch, 'auth') });
    pool = createPool(postgres.url, 2);
  });

  afterAll(async () => {
    await node?.stop();
    await pool?.end();
    postgres?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('keeps a token\'s scopes and project, and reads a row without scopes (made before them) as every scope', async () => {
    const user = await node.auth.users.create({ email: 'scoped@x.org', password: 'password-1' });
    const { id, token } = await node.auth.tokens.create(user.id, { name: 'reader', scopes: ['read', 'mcp'], projectId: 'p1' });
    const { rows } = await pool.query('SELECT scopes, project_id FROM auth_token WHERE id = $1', [id]);
    expect(rows).toEqual([{ scopes: ['read', 'mcp'], project_id: 'p1' }]);
    expect(node.auth.authenticateToken(token)?.access).toEqual({ scopes: ['read', 'mcp'], projectId: 'p1' });

    const old = await node.auth.tokens.create(user.id, { name: 'old' });
    await pool.query('UPDATE auth_token SET scopes = NULL, project_id = NULL WHERE id = $1', [old.id]);
    const second = await startClusterNode({ databaseUrl: postgres.url, instanceId: 'node-b', instanceUrl: 'http://127.0.0.1:2', weight: 1 }, { authDir: join(scratch, 'auth-b') });
    try {
      expect(second.auth.authenticateToken(old.token)?.access).toEqual({ scopes: TOKEN_SCOPES, projectId: null });
      expect(second.auth.authenticateToken(token)?.access).toEqual({ scopes: ['read', 'mcp'], projectId: 'p1' });
    } finally {
      await second.stop();
    }
  });
});
