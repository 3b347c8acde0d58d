import { readFileSync } from 'node:fs';
import pg from 'pg';

/** Cluster mode is on when OPENPROGRAM_CLUSTER_DB is set; the instance names itself with the other two. */
export interface ClusterConfig {
  databaseUrl: string;
  instanceId: string;
  /** where HAProxy and other instances reach this one, e.g. http://10.0.0.5:3000 */
  instanceUrl: string;
  /** share of new users this instance takes (OPENPROGRAM_INSTANCE_WEIGHT, default 1) */
  weight: number | null;
}

const INSTANCE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Null without OPENPROGRAM_CLUSTER_DB (the embedded default); a clear error when it is set but incomplete. */
export function clusterConfigFromEnv(env: Record<string, string | undefined> = process.env): ClusterConfig | null {
  const databaseUrl = env.OPENPROGRAM_CLUSTER_DB?.trim();
  if (!databaseUrl) return null;
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('OPENPROGRAM_CLUSTER_DB must be a postgres:// URL');
  const instanceId = env.OPENPROGRAM_INSTANCE_ID?.trim() ?? '';
  if (!INSTANCE_ID.test(instanceId)) {
    throw new Error('OPENPROGRAM_INSTANCE_ID must be set in cluster mode: lower-case letters, digits and dashes (e.g. "node-a")');
  }
  const instanceUrl = env.OPENPROGRAM_INSTANCE_URL?.trim() ?? '';
  let parsed: URL;
  try {
    parsed = new URL(instanceUrl);
  } catch {
    throw new Error('OPENPROGRAM_INSTANCE_URL must be set in cluster mode: the http:// address HAProxy reaches this instance on');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('OPENPROGRAM_INSTANCE_URL must be an http:// or https:// URL');
  const weightText = env.OPENPROGRAM_INSTANCE_WEIGHT?.trim();
  const weight = weightText ? Number(weightText) : null;
  if (weight !== null && (!Number.isInteger(weight) || weight < 0 || weight > 1000)) {
    throw new Error('OPENPROGRAM_INSTANCE_WEIGHT must be an integer from 0 to 1000');
  }
  return { databaseUrl, instanceId, instanceUrl: parsed.origin, weight };
}

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/** The one connection pool of a process. */
export function createPool(databaseUrl: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, idleTimeoutMillis: 30_000 });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', (error) => console.error('[cluster] postgres:', error.message));
  return pool;
}

// Read at run time, not imported: the same file is the documentation of the tables.
const SCHEMA_URL = new URL('./schema.sql', import.meta.url);

/** Creates what is missing (every statement is idempotent), under a lock so instances starting together take turns. */
export async function migrate(pool: pg.Pool): Promise<void> {
  const sql = readFileSync(SCHEMA_URL, 'utf8');
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('entity-memory schema'))");
    await client.query(sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** One transaction on one client; rolled back when `work` throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
