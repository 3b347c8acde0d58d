import type { APIRequestContext, APIResponse } from '@playwright/test';
import { createUser, expect, makeProjectRepo, mutate, newApiContext, openEvents, query, storeSnapshot, type TestUser } from '../fixtures';
import type { RouteRow, SurfaceIds } from '../fixtures/surface-matrix';

/** The security sweep's victim (a user with one of everything) and how an intruder calls a route of the surface matrix. */

export const SECRET = 'victim-secret-7f3a';

export interface Victim {
  user: TestUser;
  ids: SurfaceIds;
}

/** A user with one of everything: a session with a message and a commit, an attachment, a project. */
export async function victimWithData(adminApi: APIRequestContext): Promise<Victim> {
  const user = await createUser(adminApi, { label: 'victim' });
  makeProjectRepo(user.id, 'victim-project');
  // Not the secret: a project's id is made from its name, and the intruder sends the id.
  const project = await mutate<{ id: string }>(user.api, 'project.create', { path: 'victim-project', name: 'Victim project' });
  expect(project.status).toBe(200);
  const session = await mutate<{ id: string }>(user.api, 'session.create', { title: SECRET, projectId: project.data.id });
  const sessionId = session.data.id;
  await mutate(user.api, 'message.append', { sessionId, message: { role: 'user', content: `the ${SECRET} message` } });
  await mutate(user.api, 'turn.finalize', { sessionId });
  const commits = await query<{ commits: { sha: string }[] }>(user.api, 'timeline.list', { sessionId });
  const upload = await user.api.post('/api/attachments', { multipart: { sessionId, file: { name: 'secret.txt', mimeType: 'text/plain', buffer: Buffer.from(SECRET) } } });
  expect(upload.status()).toBe(200);
  const attachment = ((await upload.json()) as { name: string }).name;
  const share = await mutate<{ id: string }>(user.api, 'share.create', { sessionId });
  expect(share.status).toBe(200);
  return { user, ids: { session: sessionId, project: project.data.id, sha: commits.data.commits[0]!.sha, attachment, share: share.data.id } };
}

/**
 * The user's store and workspace once its debounced writes have landed (two equal looks in a
 * row), without the registry's journal and log: the owner's own earlier writes fold from one into
 * the other in the background. meta.json, the repositories and the workspace stay compared.
 */
export function contentSnapshot(userId: string): string {
  return storeSnapshot(userId).split('\n').filter((line) => !/\/sessions\/\.index-(journal|log\/)/.test(line)).join('\n');
}

export async function settledSnapshot(userId: string): Promise<string> {
  let previous = contentSnapshot(userId);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 700));
    const now = contentSnapshot(userId);
    if (now === previous) return now;
    previous = now;
  }
}

export const NEVER: SurfaceIds = { session: 'never-existed-0001', project: 'never-existed', sha: 'b'.repeat(40), attachment: 'never.txt', share: 'A'.repeat(22) };

export async function callRoute(api: APIRequestContext, row: RouteRow, ids: SurfaceIds, headers: Record<string, string> = {}): Promise<APIResponse> {
  const body = row.body?.(ids);
  const options = {
    headers: { ...row.headers, ...headers },
    maxRedirects: 0,
    timeout: 10_000,
    ...(body?.json !== undefined ? { data: JSON.stringify(body.json), headers: { 'content-type': 'application/json', ...row.headers, ...headers } } : {}),
    ...(body?.raw ? { data: body.raw } : {}),
    ...(body?.form ? { form: body.form } : {}),
    ...(body?.multipart ? { multipart: body.multipart } : {}),
  };
  if (row.url(ids) === '/api/events') {
    // An endless stream: only its status matters here.
    const stream = await openEvents({ ...options.headers });
    stream.close();
    return { status: () => stream.status, text: async () => '', headers: () => ({}) } as unknown as APIResponse;
  }
  return row.method === 'GET' ? api.get(row.url(ids), options) : api.post(row.url(ids), options);
}

/** A credential-free request context (no cookie jar shared with anyone). */
export async function bare(): Promise<APIRequestContext> {
  return newApiContext();
}
