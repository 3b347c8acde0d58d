import { describe, expect, it } from 'vitest';
import { PROCEDURES } from '../../e2e/fixtures/procedure-matrix';
import { appRouter } from './root';

describe('the access matrix of e2e/api', () => {
  it('has exactly one row per procedure of the router, with the right type', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
    const actual = Object.entries(procedures).map(([path, procedure]) => `${path}:${procedure._def.type}`).sort();
    const rows = PROCEDURES.map((row) => `${row.path}:${row.type}`).sort();
    expect(rows).toEqual(actual);
  });
});
