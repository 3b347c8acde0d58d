import {
  createSession,
  createToken,
  expect,
  mutate,
  query,
  test,
  bearer,
  authStateSnapshot,
  newApiContext,
  storeSnapshot,
  type TrpcAnswer,
} from '../fixtures';
import type { APIRequestContext } from '@playwright/test';
import { PROCEDURES, usesSession, withSession, type ProcedureRow } from '../fixtures/procedure-matrix';

function call(api: APIRequestContext, row: ProcedureRow, input: unknown, headers: Record<string, string> = {}): Promise<TrpcAnswer> {
  return row.type === 'query' ? query(api, row.path, input, headers) : mutate(api, row.path, input, headers);
}

test.describe('access matrix: every procedure', () => {
  for (const row of PROCEDURES) {
    test(`${row.path} (${row.access})`, async ({ adminApi, user }) => {
      const anonymous = await newApiContext();
      const { token } = await createToken(user.api, `matrix ${row.path}`);
      const adminId = (await query<{ id: string }>(adminApi, 'user.me')).data.id;
      // Each caller names a session of their own where the row has one.
      const needsSession = usesSession(row.valid) || usesSession(row.invalid);
      const userSession = needsSession ? (await createSession(user.api)).id : 'unused';
      const adminSession = needsSession ? (await createSession(adminApi)).id : 'unused';
      const valid = withSession(row.valid, userSession);

      // No credentials: 401 unless public.
      const noCredentials = await call(anonymous, row, valid);
      if (row.access === 'public') expect(noCredentials.status).not.toBe(401);
      else {
        expect(noCredentials.status).toBe(401);
        expect(noCredentials.body.error?.data.code).toBe('UNAUTHORIZED');
      }

      // A personal API token: 403 for token and admin procedures.
      const withToken = await call(anonymous, row, valid, bearer(token));
      if (row.access === 'cookie' || row.access === 'admin') {
        expect(withToken.status).toBe(403);
        expect(withToken.body.error?.data.code).toBe('FORBIDDEN');
      } else if (row.access === 'protected') {
        expect([401, 403]).not.toContain(withToken.status);
      } else {
        expect(withToken.status).not.toBe(401);
      }

      // A signed-in non-admin: 403 for admin procedures only. (A public procedure may still say
      // 403 for its own reason, e.g. sign-up while closed.)
      const asUser = await call(user.api, row, valid);
      if (row.access === 'admin') expect(asUser.status).toBe(403);
      else if (row.access === 'public') expect(asUser.status).not.toBe(401);
      else expect([401, 403]).not.toContain(asUser.status);
      // Whatever the procedure answers, a valid input never makes the server fail.
      for (const answer of [noCredentials, withToken, asUser]) expect(answer.status).toBeLessThan(500);

      // Bad input from a caller who may call it: 400 with a readable message, nothing written
      // (neither the auth files nor the caller's store and workspace).
      if (row.invalid !== undefined) {
        // The first call of a user opens (creates) their empty store; that is not this request's doing.
        expect((await query(adminApi, 'project.list')).status).toBe(200);
        const before = authStateSnapshot();
        const storeBefore = storeSnapshot(adminId);
        const bad = await call(adminApi, row, withSession(row.invalid, adminSession));
        expect(bad.status).toBe(400);
        expect(bad.body.error?.data.code).toBe('BAD_REQUEST');
        expect(bad.body.error?.message).toMatch(/^\w+(\.\w+)*: .+/);
        expect(authStateSnapshot()).toBe(before);
        expect(storeSnapshot(adminId)).toBe(storeBefore);
      }
      await anonymous.dispose();
    });
  }
});
