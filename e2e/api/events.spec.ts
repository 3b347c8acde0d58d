import { bearer, cookieHeaderOf, createToken, expect, openEvents, test, type EventStreamClient } from '../fixtures';

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
