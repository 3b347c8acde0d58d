import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allAuditEntries, type AuditEntry } from '../audit/index.js';
import { PgAuditLog } from './audit-log.js';
import { createPool, type Pool } from './db.js';
import { startTestPostgres, type TestPostgres } from './testing/postgres.js';

const entry = (at: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({ at, actor: 'u1', ip: '10.0.0.1', action: 'export', target: `t${at}`, result: 'success', ...overrides });

describe('PgAuditLog', () => {
  let postgres: TestPostgres;
  let poolA: Pool;
  let poolB: Pool;

  beforeAll(async () => {
    postgres = await startTestPostgres({ portRange: [5060, 5069], prefix: 'audit-pg-' });
    poolA = createPool(postgres.url, 2);
    poolB = createPool(postgres.url, 2);
  });

  afterAll(async () => {
    await poolA?.end();
    await poolB?.end();
    postgres?.stop();
  });

  it('creates its table, and two instances read one log, newest first, filtered and paged', async () => {
    const a = new PgAuditLog(poolA);
    const b = new PgAuditLog(poolB);
    await Promise.all([a.append(entry(1)), b.append(entry(2, { actor: 'u2', result: 'failure' }))]);
    await a.append(entry(3, { action: 'sign-in', target: 'x@example.test' }));
    expect((await b.list({ limit: 10 })).entries.map((listed) => listed.at).sort()).toEqual([1, 2, 3]);
    expect((await b.list({ limit: 10 })).entries[0]).toMatchObject({ at: 3, action: 'sign-in', target: 'x@example.test', actor: 'u1', ip: '10.0.0.1' });
    expect((await a.list({ limit: 10, actor: 'u2' })).entries.map((listed) => listed.result)).toEqual(['failure']);
    expect((await a.list({ limit: 10, action: 'export', since: 2 })).entries.map((listed) => listed.at)).toEqual([2]);
    const first = await a.list({ limit: 2 });
    expect(first.entries).toHaveLength(2);
    expect(first.next).not.toBeNull();
    const all: number[] = [];
    for await (const listed of allAuditEntries(a, {}, 1)) all.push(listed.at);
    expect(all.sort()).toEqual([1, 2, 3]);
  });
});
