import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  appendMessage,
  bearer,
  cookieHeaderOf,
  createSession,
  createToken,
  createUser,
  expect,
  makeProjectRepo,
  mutate,
  openEvents,
  test,
  type EventStreamClient,
  type SessionRow,
  type SseEvent,
} from '../fixtures';

test('no credentials, or a token in the URL, is 401', async ({ user, request }) => {
  const { token } = await createToken(user.api);
  for (const path of ['/api/events', `/api/events?token=${token}`, `/api/events?access_token=${token}`]) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(401);
  }
});

test('a stream opens with the cookie or a Bearer token', async ({ user }) => {
  const { token } = await createToken(user.api);
  const byCookie = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  const byToken = await openEvents(bearer(token));
  try {
    expect(byCookie.status).toBe(200);
    expect(byToken.status).toBe(200);
    await byCookie.waitForComment('connected');
    await byToken.waitForComment('connected');
  } finally {
    byCookie.close();
    byToken.close();
  }
});

test('an unknown or foreign Last-Event-ID gets a resync event', async ({ user }) => {
  const cookie = await cookieHeaderOf(user.api);
  for (const lastEventId of ['0123abc-5', 'garbage']) {
    const stream = await openEvents({ cookie }, lastEventId);
    try {
      const resync = await stream.waitFor((e) => e.type === 'resync');
      expect(resync.data).toEqual({});
      expect(resync.id).toMatch(/^[0-9a-z]+-\d+$/);
    } finally {
      stream.close();
    }
  }
});

test('at most 20 open streams per user: the 21st is 429, another user is unaffected', async ({ user, adminApi }) => {
  const cookie = await cookieHeaderOf(user.api);
  const streams: EventStreamClient[] = [];
  try {
    for (let i = 0; i < 20; i++) {
      const stream = await openEvents({ cookie });
      streams.push(stream);
      expect(stream.status).toBe(200);
    }
    const refused = await openEvents({ cookie });
    expect(refused.status).toBe(429);
    const other = await openEvents({ cookie: await cookieHeaderOf(adminApi) });
    expect(other.status).toBe(200);
    other.close();

    // Closing one frees its slot (the server notices the disconnect).
    streams.shift()!.close();
    await expect
      .poll(async () => {
        const retry = await openEvents({ cookie });
        retry.close();
        return retry.status;
      })
      .toBe(200);
  } finally {
    for (const stream of streams) stream.close();
  }
});

test('two clients of a user receive its changes within a second; another user\'s client receives none', async ({ user, adminApi }) => {
  const other = await createUser(adminApi, { label: 'bystander' });
  const { token } = await createToken(user.api);
  const first = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  const second = await openEvents(bearer(token));
  const bystander = await openEvents({ cookie: await cookieHeaderOf(other.api) });
  const clients = [first, second];
  // Within a second, on every client of the user.
  const seenByAll = (match: (event: SseEvent) => boolean) => Promise.all(clients.map((client) => client.waitFor(match, 1_000)));
  try {
    await Promise.all([...clients, bystander].map((client) => client.waitForComment('connected')));

    const row = await createSession(user.api, { id: 'live', title: 'Live one' });
    for (const event of await seenByAll((e) => e.type === 'session_created' && (e.data as SessionRow).id === 'live')) {
      expect(event.data).toEqual(row);
    }

    await mutate(user.api, 'session.update', { id: 'live', title: 'Renamed' });
    for (const event of await seenByAll((e) => e.type === 'session_updated' && (e.data as { title?: string }).title === 'Renamed')) {
      // Only what changed: a rename keeps updatedAt.
      expect(event.data).toEqual({ id: 'live', title: 'Renamed' });
    }
    await mutate(user.api, 'session.update', { id: 'live', pinned: true });
    await seenByAll((e) => e.type === 'session_updated' && JSON.stringify(e.data) === JSON.stringify({ id: 'live', pinned: true }));

    const message = await appendMessage(user.api, 'live', { role: 'user', content: 'Hello\nthere' });
    for (const event of await seenByAll((e) => e.type === 'message_appended')) {
      expect(event.data).toEqual({ sessionId: 'live', message });
    }
    for (const event of await seenByAll((e) => e.type === 'session_updated' && 'preview' in (e.data as object))) {
      expect(event.data).toEqual({ id: 'live', updatedAt: message.createdAt, preview: 'Hello there' });
    }

    const { sessionCommit } = (await mutate<{ sessionCommit: string }>(user.api, 'turn.finalize', { sessionId: 'live' })).data;
    for (const event of await seenByAll((e) => e.type === 'turn_committed')) {
      expect(event.data).toEqual({ sessionId: 'live', turn: 1, sha: sessionCommit });
    }

    await mutate(user.api, 'session.delete', { id: 'live' });
    for (const event of await seenByAll((e) => e.type === 'session_deleted')) expect(event.data).toEqual({ id: 'live' });

    // Both clients saw the same events with the same, increasing ids.
    expect(second.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    const seqs = first.events.map((e) => Number(e.id!.split('-')[1]));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

    // The bystander's own change arrives; none of the user's ever did.
    await createSession(other.api, { id: 'theirs' });
    await bystander.waitFor((e) => e.type === 'session_created', 1_000);
    expect(bystander.events.map((e) => e.type)).toEqual(['session_created']);
    expect(JSON.stringify(bystander.events)).not.toContain('live');
  } finally {
    for (const client of [...clients, bystander]) client.close();
    await other.api.dispose();
  }
});

test('a reconnect with Last-Event-ID gets everything it missed, in order, and nothing twice', async ({ user }) => {
  const cookie = await cookieHeaderOf(user.api);
  const stream = await openEvents({ cookie });
  // A title of its own: no automatic title events in between.
  await createSession(user.api, { id: 'resume', title: 'Resumable' });
  const last = await stream.waitFor((e) => e.type === 'session_created');
  stream.close();

  // While it is away.
  await appendMessage(user.api, 'resume', { id: 'm1', role: 'user', content: 'one' });
  await mutate(user.api, 'session.setArchived', { id: 'resume', archived: true });
  await mutate(user.api, 'turn.finalize', { sessionId: 'resume' });

  const resumed = await openEvents({ cookie }, last.id!);
  try {
    await resumed.waitFor((e) => e.type === 'turn_committed');
    expect(resumed.events.map((e) => e.type)).toEqual(['message_appended', 'session_updated', 'session_updated', 'turn_committed']);
    expect(resumed.events[2]!.data).toEqual({ id: 'resume', archived: true });
    const [boot, seq] = last.id!.split('-');
    expect(resumed.events.map((e) => e.id)).toEqual([1, 2, 3, 4].map((n) => `${boot}-${Number(seq) + n}`));
    // Live events go on after the replay.
    await mutate(user.api, 'session.update', { id: 'resume', title: 'Back' });
    await resumed.waitFor((e) => e.type === 'session_updated' && (e.data as { title?: string }).title === 'Back', 1_000);
  } finally {
    resumed.close();
  }
});

test('project_commit_skipped reaches the stream when a dirty tree gets no agent commit', async ({ user }) => {
  const dir = makeProjectRepo(user.id, 'events-dirty');
  const project = (await mutate<{ id: string }>(user.api, 'project.create', { path: 'events-dirty' })).data;
  await createSession(user.api, { id: 'skip', projectId: project.id });
  writeFileSync(join(dir, 'README.md'), 'changed by the person\n');
  const stream = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  try {
    await mutate(user.api, 'turn.begin', { sessionId: 'skip' });
    await appendMessage(user.api, 'skip', { role: 'user', content: 'go' });
    await mutate(user.api, 'turn.finalize', { sessionId: 'skip' });
    const skipped = await stream.waitFor((e) => e.type === 'project_commit_skipped', 1_000);
    expect(skipped.data).toEqual({ sessionId: 'skip', projectId: project.id, reason: 'dirty_tree', message: expect.any(String) });
  } finally {
    stream.close();
  }
});

test('a large message is replayed from the buffer as its id and first characters, marked truncated; a small one whole', async ({ user }) => {
  const cookie = await cookieHeaderOf(user.api);
  const stream = await openEvents({ cookie });
  await createSession(user.api, { id: 'big-events', title: 'Big events' });
  const last = await stream.waitFor((e) => e.type === 'session_created');
  stream.close();

  const large = `Report\n${'r'.repeat(200_000)}`;
  const big = await appendMessage(user.api, 'big-events', { id: 'big1', role: 'user', content: large, input: { huge: 'i'.repeat(100_000) } });
  const small = await appendMessage(user.api, 'big-events', { id: 'small1', role: 'assistant', content: 'a short reply' });

  const resumed = await openEvents({ cookie }, last.id!);
  try {
    await resumed.waitFor((e) => e.type === 'message_appended' && (e.data as { message: { id: string } }).message.id === 'small1');
    const appended = resumed.events.filter((e) => e.type === 'message_appended').map((e) => (e.data as { message: Record<string, unknown> }).message);
    expect(appended[0]).toEqual({ ...big, content: large.slice(0, 1_000), input: null, truncated: true });
    expect(appended[1]).toEqual(small);
    // The whole message is a read away.
    expect(big.content).toBe(large);
  } finally {
    resumed.close();
  }
});
