import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appRouter } from '../server/api/root';
import { API_DOC, renderApiDocs } from './gen-api-docs';

describe('docs/api.md', () => {
  it('is what the routers generate now (npm run docs:api)', () => {
    expect(readFileSync(API_DOC, 'utf8'), 'docs/api.md is out of date: run npm run docs:api').toBe(renderApiDocs());
  });

  it('names every procedure, with its kind, and the worked curl example', () => {
    const text = renderApiDocs();
    const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string } }> } })._def.procedures;
    for (const [path, procedure] of Object.entries(procedures)) expect(text).toContain(`#### \`${path}\` · ${procedure._def.type}`);
    for (const step of ['session.create', 'turn.begin', 'message.append', 'turn.finalize']) expect(text).toContain(`call ${step} `);
    // The input of a real procedure, as its zod schema has it.
    expect(text).toMatch(/#### `turn\.finalize` · mutation[^#]*status\?: "idle" \| /);
  });
});
