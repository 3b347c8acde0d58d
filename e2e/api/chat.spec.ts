import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cookieHeaderOf, expect, MODEL_NAME, mutate, openEvents, query, stateDirOf, test, type SessionRow, type TimelineCommit } from '../fixtures';
import { branchOf, isTitleRequest, modelRequests, send, turnEnded, until } from './chat-helpers';

test('the first message creates the session with it: preview at once, the reply, a turn commit and its context file', async ({ user }) => {
  const events = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  try {
    await events.waitForComment('connected');
    const { sessionId, userMessageId } = await send(user.api, { content: 'Plan a trip to Kyoto\nin spring' });
    const created = await events.waitFor((event) => event.type === 'session_created' && (event.data as SessionRow).id === sessionId);
    expect((created.data as SessionRow).source).toBe('web');
    // Listed with its preview right away, while the reply is still coming.
    const rows = (await query<{ rows: SessionRow[] }>(user.api, 'session.list')).data.rows;
    expect(rows.map((row) => [row.id, row.preview])).toEqual([[sessionId, 'Plan a trip to Kyoto in spring']]);

    const session = await turnEnded(user.api, sessionId);
    expect(session).toMatchObject({ status: 'idle', turnCount: 1 });
    const branch = await branchOf(user.api, sessionId);
    expect(branch.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Plan a trip to Kyoto\nin spring'],
      ['assistant', 'You said: Plan a trip to Kyoto\nin spring'],
    ]);
    expect(branch[0]!.id).toBe(userMessageId);
    expect(branch[1]).toMatchObject({ name: MODEL_NAME, metadata: { model: MODEL_NAME } });
    const replyId = branch[1]!.id;

    const commits = (await query<{ commits: TimelineCommit[] }>(user.api, 'timeline.list', { sessionId })).data.commits;
    expect(commits[0]).toMatchObject({ turn: 1, message: 'turn: Plan a trip to Kyoto', nodeIds: [userMessageId, replyId] });
    // context/commits/<replyId>.json: what the model was sent, committed with the turn.
    const contextFile = join(stateDirOf(user.id), 'sessions', sessionId, 'context', 'commits', `${replyId}.json`);
    const context = JSON.parse(readFileSync(contextFile, 'utf8')) as { model: string; messages: { role: string; content: string }[] };
    expect(context.model).toBe(MODEL_NAME);
    expect(context.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const diff = (await query<{ files: { path: string }[] }>(user.api, 'timeline.diff', { sessionId, sha: commits[0]!.sha })).data.files;
    expect(diff.map((file) => file.path)).toContain(`context/commits/${replyId}.json`);
  } finally {
    events.close();
  }
});

test('the truncated title when the first turn ends, the model title shortly after', async ({ user }) => {
  const events = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  try {
    await events.waitForComment('connected');
    const content = 'organise the garden shed this weekend please [[title-wait:1500]]';
    const { sessionId } = await send(user.api, { content });
    const titled = (title: string) => (event: { type: string; data: unknown }) =>
      event.type === 'session_updated' && (event.data as SessionRow).id === sessionId && (event.data as SessionRow).title === title;
    // Phase 1: the first line, 50 code points and "…".
    await events.waitFor(titled('organise the garden shed this weekend please [[tit…'), 10_000);
    // Phase 2: the model's, cleaned of its "Title:" prefix and quotes.
    const phaseOne = events.events.findIndex(titled('organise the garden shed this weekend please [[tit…'));
    await events.waitFor(titled('Organise The Garden Shed'), 10_000);
    expect(events.events.findIndex(titled('Organise The Garden Shed'))).toBeGreaterThan(phaseOne);
    const title = (await modelRequests('organise the garden shed')).find(isTitleRequest)!;
    expect(title.body).toMatchObject({ model: MODEL_NAME, stream: false, max_tokens: 50, temperature: 0.3 });
  } finally {
    events.close();
  }
});

test('a rename during the title request keeps the person\'s title', async ({ user }) => {
  const content = 'rename me while the title model thinks [[title-wait:1500]]';
  const { sessionId } = await send(user.api, { content });
  await until(async () => (await turnEnded(user.api, sessionId)).title === 'rename me while the title model thinks [[title-wai…', 'phase 1 title');
  const renamed = await mutate<SessionRow>(user.api, 'session.update', { id: sessionId, title: 'My own title' });
  expect(renamed.status).toBe(200);
  // The title request was answered (after the rename) …
  await until(async () => (await modelRequests('rename me while')).find((request) => isTitleRequest(request) && request.durationMs !== null), 'title answered');
  await new Promise((resolve) => setTimeout(resolve, 300));
  // … and did not replace the person's title.
  expect((await query<SessionRow>(user.api, 'session.get', { id: sessionId })).data.title).toBe('My own title');
});

test('streamed deltas arrive as events, in order, before the reply node and chat_done', async ({ user }) => {
  const events = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  try {
    await events.waitForComment('connected');
    const { sessionId } = await send(user.api, { content: 'one two three four five six' });
    const done = await events.waitFor((event) => event.type === 'chat_done' && (event.data as { sessionId: string }).sessionId === sessionId, 10_000);
    const mine = events.events.filter((event) => (event.data as { sessionId?: string }).sessionId === sessionId);
    const deltas = mine.filter((event) => event.type === 'chat_delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((event) => (event.data as { delta: string }).delta).join('')).toBe('You said: one two three four five six');
    const replyId = (done.data as { messageId: string }).messageId;
    expect(deltas.every((event) => (event.data as { messageId: string }).messageId === replyId)).toBe(true);
    const seq = (event: { id: string | null }) => Number(event.id!.split('-')[1]);
    const order = mine.map(seq);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const replyNode = mine.find((event) => event.type === 'message_appended' && (event.data as { message: { id: string } }).message.id === replyId)!;
    expect(seq(replyNode)).toBeGreaterThan(seq(deltas.at(-1)!));
    expect(seq(done)).toBeGreaterThan(seq(replyNode));
  } finally {
    events.close();
  }
});

test('a second send while a turn runs is CONFLICT; cancel ends the turn cancelled and keeps what streamed', async ({ user }) => {
  const events = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  try {
    await events.waitForComment('connected');
    const { sessionId } = await send(user.api, { content: 'a long answer please [[delay:40]] [[words:300]]' });
    const again = await mutate(user.api, 'chat.send', { sessionId, content: 'and another' });
    expect(again.status).toBe(409);
    expect(again.body.error?.data.code).toBe('CONFLICT');
    await events.waitFor((event) => event.type === 'chat_delta' && (event.data as { sessionId: string }).sessionId === sessionId);
    // A tab that opens now reads the text so far; each delta says where it continues it.
    const state = (await query<{ running: boolean; streaming: { messageId: string; text: string } | null }>(user.api, 'chat.state', { sessionId })).data;
    expect(state.running).toBe(true);
    const whole = `You said: a long answer please [[delay:40]] [[words:300]] ${Array.from({ length: 300 }, (_, i) => `word${i + 1}`).join(' ')}`;
    expect(state.streaming!.text.length).toBeGreaterThan(0);
    expect(whole.startsWith(state.streaming!.text)).toBe(true);
    const deltas = events.events.filter((event) => event.type === 'chat_delta' && (event.data as { sessionId: string }).sessionId === sessionId);
    let offset = 0;
    for (const delta of deltas) {
      const data = delta.data as { messageId: string; delta: string; offset: number };
      expect(data.messageId).toBe(state.streaming!.messageId);
      expect(data.offset).toBe(offset);
      offset += data.delta.length;
    }
    const cancelled = await mutate<{ cancelled: boolean }>(user.api, 'chat.cancel', { sessionId });
    expect(cancelled.data).toEqual({ cancelled: true });
    const session = await turnEnded(user.api, sessionId);
    expect(session.status).toBe('cancelled');
    const branch = await branchOf(user.api, sessionId);
    expect(branch.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(branch[1]!.metadata['cancelled']).toBe(true);
    expect(branch[1]!.content).not.toContain('word300');
    expect((await mutate<{ cancelled: boolean }>(user.api, 'chat.cancel', { sessionId })).data).toEqual({ cancelled: false });
    // The session takes the next message.
    await send(user.api, { sessionId, content: 'short one' });
    expect((await turnEnded(user.api, sessionId)).status).toBe('idle');
  } finally {
    events.close();
  }
});

test('a model failure ends the turn failed, says so, and keeps the user message', async ({ user }) => {
  const events = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  try {
    await events.waitForComment('connected');
    const { sessionId, userMessageId } = await send(user.api, { content: 'this will break [[fail]]' });
    const error = await events.waitFor((event) => event.type === 'chat_error' && (event.data as { sessionId: string }).sessionId === sessionId, 10_000);
    expect((error.data as { message: string }).message).toMatch(/500/);
    const session = await turnEnded(user.api, sessionId);
    expect(session).toMatchObject({ status: 'failed', turnCount: 1, preview: 'this will break [[fail]]' });
    expect((await branchOf(user.api, sessionId)).map((m) => m.id)).toEqual([userMessageId]);
    expect((await query<{ lastError: string | null }>(user.api, 'chat.state', { sessionId })).data.lastError).toMatch(/500/);

    // Broken off mid-stream: what arrived is kept, marked with the error.
    const broken = await send(user.api, { content: 'cut me off [[fail:stream]] [[words:20]]' });
    expect((await turnEnded(user.api, broken.sessionId)).status).toBe('failed');
    const reply = (await branchOf(user.api, broken.sessionId))[1]!;
    expect(reply.content.length).toBeGreaterThan(0);
    expect(reply.metadata['error']).toMatch(/broke off/);
  } finally {
    events.close();
  }
});

test('retry adds a sibling reply; edit and resend starts a new branch', async ({ user }) => {
  const { sessionId, userMessageId } = await send(user.api, { content: 'first question' });
  await turnEnded(user.api, sessionId);
  const firstReply = (await branchOf(user.api, sessionId))[1]!;
  const retried = await mutate<{ parentId: string }>(user.api, 'chat.retry', { sessionId, assistantId: firstReply.id });
  expect(retried.data).toMatchObject({ parentId: userMessageId });
  await turnEnded(user.api, sessionId);
  let branch = await branchOf(user.api, sessionId);
  expect(branch[1]!.id).not.toBe(firstReply.id);
  expect(branch[1]!.siblings).toEqual([firstReply.id, branch[1]!.id]);

  const edited = await send(user.api, { sessionId, content: 'first question, better', parentId: null });
  const session = await turnEnded(user.api, sessionId);
  branch = await branchOf(user.api, sessionId);
  expect(branch.map((m) => m.content)).toEqual(['first question, better', 'You said: first question, better']);
  expect(branch[0]!.siblings).toEqual([userMessageId, edited.userMessageId]);
  expect(session.headId).toBe(branch[1]!.id);
  expect((await query<unknown[]>(user.api, 'branch.list', { sessionId })).data.length).toBeGreaterThanOrEqual(2);
});

test('deleting a session with a running turn stops it first; nothing is written after', async ({ user }) => {
  const { sessionId } = await send(user.api, { content: 'keep going [[delay:50]] [[words:200]]' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const deleted = await mutate(user.api, 'session.delete', { id: sessionId });
  expect(deleted.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(existsSync(join(stateDirOf(user.id), 'sessions', sessionId))).toBe(false);
  expect((await query(user.api, 'session.get', { id: sessionId })).status).toBe(404);
});

test('bad input is refused and creates nothing', async ({ user }) => {
  for (const input of [{ content: '' }, { content: '  \n ' }, { content: 'x', sessionId: '../x' }, { content: 'x', attachmentIds: ['a.txt'] }, { content: 'x', parentId: 'abc' }]) {
    const answer = await mutate(user.api, 'chat.send', input);
    expect(answer.status, JSON.stringify(input)).toBe(400);
  }
  expect((await mutate(user.api, 'chat.send', { content: 'x', sessionId: 'nope' })).status).toBe(404);
  expect((await mutate(user.api, 'chat.send', { content: 'x', projectId: 'nope' })).status).toBe(404);
  expect((await query<{ rows: SessionRow[] }>(user.api, 'session.list')).data.rows).toEqual([]);
});
