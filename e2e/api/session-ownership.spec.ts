import type { APIRequestContext } from '@playwright/test';
import { appendMessage, createSession, createUser, expect, mutate, query, storeSnapshot, test, type TrpcAnswer } from '../fixtures';
import { PROCEDURES, SESSION, withSession, type ProcedureRow } from '../fixtures/procedure-matrix';

/** The procedures on one session named by the input (sessionProcedure); bulk takes a list. */
const SESSION_ROWS = PROCEDURES.filter((row) => {
  const valid = row.valid as { id?: unknown; sessionId?: unknown } | undefined;
  return valid?.id === SESSION || valid?.sessionId === SESSION;
});

function call(api: APIRequestContext, row: ProcedureRow, sessionId: string): Promise<TrpcAnswer> {
  const input = withSession(row.valid, sessionId);
  return row.type === 'query' ? query(api, row.path, input) : mutate(api, row.path, input);
}

test('every session procedure answers another user\'s session exactly like one that exists nowhere', async ({ user, adminApi }) => {
  expect(SESSION_ROWS.length).toBeGreaterThan(15);
  const intruder = await createUser(adminApi, { label: 'intruder' });
  const victim = await createSession(user.api, { id: 'owned-by-user', title: 'Private' });
  await appendMessage(user.api, victim.id, { id: 'u1', role: 'user', content: 'my secret' });
  await mutate(user.api, 'turn.finalize', { sessionId: victim.id });
  const victimBefore = storeSnapshot(user.id);

  const whileItExists = new Map<string, unknown>();
  for (const row of SESSION_ROWS) {
    const answer = await call(intruder.api, row, victim.id);
    expect(answer.status, row.path).toBe(404);
    expect(answer.body.error?.data.code).toBe('NOT_FOUND');
    // The Trash's procedures name a trashed session: for them another user's live one is not in the caller's trash.
    expect(answer.body.error?.message).toBe(row.path.startsWith('trash.') ? `no session ${victim.id} in the trash` : `unknown session: ${victim.id}`);
    expect(JSON.stringify(answer.body)).not.toContain('my secret');
    whileItExists.set(row.path, answer.body);
  }
  // Nothing the intruder did reached the owner's session, nor created anything of the intruder's.
  expect(storeSnapshot(user.id)).toBe(victimBefore);
  expect((await query<{ rows: unknown[] }>(intruder.api, 'session.list', { scope: 'all' })).data.rows).toEqual([]);

  await mutate(user.api, 'session.delete', { id: victim.id });
  for (const row of SESSION_ROWS) {
    const answer = await call(intruder.api, row, victim.id);
    expect(answer.body, row.path).toEqual(whileItExists.get(row.path));
  }
  await intruder.api.dispose();
});

test('session.bulk reports another user\'s ids as missing, like unknown ones, and touches nothing', async ({ user, adminApi }) => {
  const intruder = await createUser(adminApi, { label: 'intruder' });
  await createSession(user.api, { id: 'bulk-owned' });
  const before = storeSnapshot(user.id);
  for (const action of ['archive', 'unarchive', 'markRead', 'delete']) {
    const answer = await mutate(intruder.api, 'session.bulk', { ids: ['bulk-owned', 'never-was'], action });
    expect(answer.data).toEqual({ done: [], missing: ['bulk-owned', 'never-was'] });
  }
  expect(storeSnapshot(user.id)).toBe(before);
  // relocate's optional sessionId is checked the same way.
  const relocate = await mutate(intruder.api, 'project.relocate', { id: 'nope', path: '.', sessionId: 'bulk-owned' });
  expect(relocate.status).toBe(404);
  expect(relocate.body.error?.message).toBe('unknown session: bulk-owned');
  await intruder.api.dispose();
});
