import type { APIRequestContext } from '@playwright/test';
import { createSession, expect, test } from '../fixtures';
import { PROCEDURES, usesSession, withSession, type ProcedureRow } from '../fixtures/procedure-matrix';

/** Values no field expects: wrong types, huge and hostile strings, odd numbers. */
const ODD_VALUES: unknown[] = [
  null,
  42,
  -1,
  1e308,
  true,
  [],
  {},
  [[['deep']]],
  '',
  'x'.repeat(100_000),
  '../../../../etc/passwd',
  'a\u0000b',
  '\u202e\ud83d\ude00',
  '$session',
];

/** Whole inputs that are not what any procedure takes. */
const ODD_INPUTS: unknown[] = [null, 'text', 7, [], [{}], { __proto__: { admin: true } }];

const STORE_ROWS = PROCEDURES.filter((row) => /^(session|message|branch|turn|project|timeline)\./.test(row.path));

/** Status and error message; a body that is not tRPC's JSON (Node's own 431 for a huge URL) has none. */
async function call(api: APIRequestContext, row: ProcedureRow, input: unknown): Promise<{ status: number; message: string | null }> {
  const response =
    row.type === 'query'
      ? await api.get(`/api/trpc/${row.path}?input=${encodeURIComponent(JSON.stringify(input))}`)
      : await api.post(`/api/trpc/${row.path}`, { headers: { 'content-type': 'application/json' }, data: JSON.stringify(input) });
  const text = await response.text();
  let message: string | null = null;
  try {
    message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? null;
  } catch {
    message = null;
  }
  return { status: response.status(), message };
}

for (const row of STORE_ROWS) {
  test(`${row.path}: unusual inputs are answered with 4xx, never 500`, async ({ user }) => {
    const sessionId = (await createSession(user.api)).id;
    const valid = withSession(row.valid, sessionId) as Record<string, unknown> | undefined;
    const inputs: unknown[] = [...ODD_INPUTS];
    for (const key of Object.keys(valid ?? {})) {
      for (const value of ODD_VALUES) inputs.push({ ...valid, [key]: value });
    }
    if (usesSession(row.valid)) inputs.push({ ...valid, extra: { nested: 'x'.repeat(10_000) } });
    for (const input of inputs) {
      const what = `${row.path} ${JSON.stringify(input).slice(0, 120)}`;
      const answer = await call(user.api, row, input);
      expect(answer.status, what).toBeLessThan(500);
      // Every refusal of ours says why (431 comes from Node's HTTP parser, before any of our code).
      if (answer.status >= 400 && answer.status !== 431) expect(answer.message, what).toBeTruthy();
    }
  });
}
