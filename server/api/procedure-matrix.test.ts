import { describe, expect, it } from 'vitest';
import { PROCEDURES } from '../../e2e/fixtures/procedure-matrix';
import { PROCEDURE_SCOPES } from '../../e2e/fixtures/procedure-scopes';
import { appRouter } from './root';
import { requiredScope, type ProcedureMeta } from './token-access';

type RouterProcedures = Record<string, { _def: { type: string; meta?: ProcedureMeta } }>;

describe('the access matrix of e2e/api', () => {
  it('has exactly one row per procedure of the router, with the right type', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
    const actual = Object.entries(procedures).map(([path, procedure]) => `${path}:${procedure._def.type}`).sort();
    const rows = PROCEDURES.map((row) => `${row.path}:${row.type}`).sort();
    expect(rows).toEqual(actual);
  });

  it('names the scope every procedure needs, as the router declares it', () => {
    const procedures = appRouter._def.procedures as unknown as RouterProcedures;
    const publicPaths = new Set(PROCEDURES.filter((row) => row.access === 'public').map((row) => row.path));
    const declared = Object.fromEntries(
      Object.entries(procedures).map(([path, { _def }]) => [path, publicPaths.has(path) ? null : requiredScope(_def.meta, _def.type)]),
    );
    expect(PROCEDURE_SCOPES).toEqual(declared);
  });
});
