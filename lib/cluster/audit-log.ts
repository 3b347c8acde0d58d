import { boundedEntry, type AuditEntry, type AuditLog, type AuditPage, type AuditQuery, type AuditResult, type AuditAction } from '../audit/index.js';
import { inTransaction, type Pool } from './db.js';

// Created here, not in schema.sql: the audit log is its own concern, and an instance that starts
// before this table existed makes it at its first entry. `id` orders entries across instances.
const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS audit (
  id bigserial PRIMARY KEY,
  at bigint NOT NULL,
  actor text,
  ip text,
  action text NOT NULL,
  target text NOT NULL,
  result text NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_actor_id ON audit (actor, id);
`;

interface AuditRow {
  id: string;
  at: string;
  actor: string | null;
  ip: string | null;
  action: string;
  target: string;
  result: string;
}

/**
 * The audit log of a cluster (DESIGN §17): every instance appends to Postgres's `audit`, so the
 * Admin page of any instance reads them all. An append resolves once its INSERT is committed.
 */
export class PgAuditLog implements AuditLog {
  private ready: Promise<void> | null = null;

  constructor(private readonly pool: Pool) {}

  /** Under a transaction lock, as migrate() does, so instances starting together take turns. */
  private ensureTable(): Promise<void> {
    this.ready ??= inTransaction(this.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('entity-memory audit'))");
      await client.query(CREATE_TABLE);
    }).catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  async append(entry: AuditEntry): Promise<void> {
    await this.ensureTable();
    const row = boundedEntry(entry);
    await this.pool.query('INSERT INTO audit (at, actor, ip, action, target, result) VALUES ($1, $2, $3, $4, $5, $6)', [row.at, row.actor, row.ip, row.action, row.target, row.result]);
  }

  async list(query: AuditQuery): Promise<AuditPage> {
    await this.ensureTable();
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      values.push(value);
      where.push(clause.replace('?', `$${values.length}`));
    };
    if (query.actor !== undefined) add('actor = ?', query.actor);
    if (query.action !== undefined) add('action = ?', query.action);
    if (query.result !== undefined) add('result = ?', query.result);
    if (query.since !== undefined) add('at >= ?', query.since);
    if (query.until !== undefined) add('at <= ?', query.until);
    if (query.before !== undefined) add('id < ?', query.before);
    values.push(query.limit + 1);
    const sql = `SELECT id, at, actor, ip, action, target, result FROM audit ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${values.length}`;
    const { rows } = await this.pool.query<AuditRow>(sql, values);
    const entries = rows.slice(0, query.limit).map((row) => ({
      id: row.id,
      at: Number(row.at),
      actor: row.actor,
      ip: row.ip,
      action: row.action as AuditAction,
      target: row.target,
      result: row.result as AuditResult,
    }));
    return { entries, next: rows.length > query.limit ? Number(entries.at(-1)!.id) : null };
  }

  async close(): Promise<void> {
    // The pool belongs to the cluster node, which ends it.
  }
}
