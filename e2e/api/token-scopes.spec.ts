import type { APIRequestContext } from '@playwright/test';
import { BASE_URL, bearer, createSession, expect, mutate, newApiContext, query, test, type TrpcAnswer } from '../fixtures';
import { PROCEDURES, usesSession, withSession, type ProcedureRow } from '../fixtures/procedure-matrix';
import { PROCEDURE_SCOPES, TOKEN_SCOPES, type TokenScope } from '../fixtures/procedure-scopes';
import { ROUTES } from '../fixtures/route-scopes';

// Issue 36 item 3 (DESIGN §17): every procedure and route × every scope, with a token of only that scope.

async function scopedToken(api: APIRequestContext, scopes: TokenScope[], projectId?: string): Promise<string> {
  const made = await mutate<{ token: string }>(api, 'token.create', { name: `only ${scopes.join('+')}`, scopes, ...(projectId ? { projectId } : {}) });
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  return made.data.token;
}

function call(api: APIRequestContext, row: ProcedureRow, input: unknown, headers: Record<string, string>): Promise<TrpcAnswer> {
  return row.type === 'query' ? query(api, row.path, input, headers) : mutate(api, row.path, input, headers);
}

test.describe('token scopes: every procedure × every scope', () => {
  for (const row of PROCEDURES.filter((procedure) => procedure.access !== 'public')) {
    test(`${row.path} (${row.access}, needs ${PROCEDURE_SCOPES[row.path] ?? 'NO SCOPE'})`, async ({ user }) => {
      const needed = PROCEDURE_SCOPES[row.path];
      expect(needed, `${row.path} names no scope in e2e/fixtures/procedure-scopes.ts`).toBeTruthy();
      const anonymous = await newApiContext();
      for (const scope of TOKEN_SCOPES) {
        const token = await scopedToken(user.api, [scope]);
        const sessionId = usesSession(row.valid) ? (await createSession(user.api)).id : 'unused';
        const answer = await call(anonymous, row, withSession(row.valid, sessionId), bearer(token));
        expect(answer.status, `${row.path} with a ${scope} token`).toBeLessThan(500);
        if (row.access === 'protected' && scope === needed) {
          expect([401, 403], `${row.path} with a ${scope} token: ${JSON.stringify(answer.body)}`).not.toContain(answer.status);
        } else {
          expect(answer.status, `${row.path} with a ${scope} token`).toBe(403);
          expect(answer.body.error?.data.code).toBe('FORBIDDEN');
          // A procedure a token may call at all says which scope is missing.
          if (row.access === 'protected') expect(answer.body.error?.message).toContain(`"${needed}" scope`);
        }
      }
      await anonymous.dispose();
    });
  }
});

test.describe('token scopes: every route × every scope', () => {
  for (const route of ROUTES) {
    test(`${route.name} (needs ${route.scope})`, async ({ user }) => {
      for (const scope of TOKEN_SCOPES) {
        const token = await scopedToken(user.api, [scope]);
        const sessionId = (await createSession(user.api)).id;
        const response = await route.send(bearer(token), sessionId);
        const body = await response.text();
        expect(response.status, `${route.name} with a ${scope} token: ${body.slice(0, 300)}`).toBeLessThan(500);
        if (scope === route.scope) expect([401, 403], `${route.name} with a ${scope} token: ${body.slice(0, 300)}`).not.toContain(response.status);
        else {
          expect(response.status, `${route.name} with a ${scope} token`).toBe(403);
          // every route answers JSON: the message's quotes are escaped
          expect(body).toContain(`lacks the \\"${route.scope}\\" scope`);
        }
      }
    });
  }
});

test('a token limited to one project reads only its sessions, writes only there, and cannot have the proxy or import scope', async ({ user }) => {
  const project = await mutate<{ id: string }>(user.api, 'project.create', { path: 'scoped-project' });
  expect(project.status).toBe(200);
  const inside = await createSession(user.api, { projectId: project.data.id, title: 'inside the project' });
  const outside = await createSession(user.api, { title: 'in Home' });
  const token = await scopedToken(user.api, ['read', 'write'], project.data.id);
  const api = await newApiContext(bearer(token));

  const listed = await query<{ rows: { id: string }[] }>(api, 'session.list', { scope: 'all' });
  expect(listed.data.rows.map((row) => row.id)).toEqual([inside.id]);
  expect((await query(api, 'session.get', { id: outside.id })).status).toBe(404);
  expect((await query(api, 'session.get', { id: inside.id })).status).toBe(200);

  const write = await mutate(api, 'message.append', { sessionId: outside.id, message: { role: 'user', content: 'not here' } });
  expect(write.status).toBe(403);
  expect(write.body.error?.message).toContain(`limited to the project "${project.data.id}"`);
  expect((await mutate(api, 'message.append', { sessionId: inside.id, message: { role: 'user', content: 'here' } })).status).toBe(200);
  const outsideBranch = await query<{ content: string }[]>(user.api, 'message.branch', { sessionId: outside.id });
  expect(JSON.stringify(outsideBranch.data)).not.toContain('not here');

  // A procedure that is not kept to one project is refused, naming the limit.
  const projects = await query(api, 'project.list');
  expect(projects.status).toBe(403);
  expect(projects.body.error?.message).toContain('cannot call project.list');

  // The routes: another project's export is unknown, an upload to it refused, the event stream closed to it.
  const headers = bearer(token);
  expect((await fetch(`${BASE_URL}/api/export/${outside.id}?format=md`, { headers })).status).toBe(404);
  expect((await fetch(`${BASE_URL}/api/export/${inside.id}?format=md`, { headers })).status).toBe(200);
  const form = new FormData();
  form.set('sessionId', outside.id);
  form.set('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
  expect((await fetch(`${BASE_URL}/api/attachments`, { method: 'POST', headers, body: form })).status).toBe(403);
  const events = await fetch(`${BASE_URL}/api/events`, { headers });
  expect(events.status).toBe(403);
  expect(await events.text()).toContain('limited to the project');

  // The proxy and the import choose the project from the agent's folder: a project token cannot have them.
  const refused = await mutate(user.api, 'token.create', { name: 'project proxy', scopes: ['proxy'], projectId: project.data.id });
  expect(refused.status).toBe(400);
  expect(refused.body.error?.message).toMatch(/only have read, write, mcp/);
  const listedTokens = await query<{ name: string; scopes: string[]; projectId: string | null }[]>(user.api, 'token.list');
  expect(listedTokens.data.map(({ name, scopes, projectId }) => ({ name, scopes, projectId }))).toEqual([{ name: 'only read+write', scopes: ['read', 'write'], projectId: project.data.id }]);
  await api.dispose();
});
