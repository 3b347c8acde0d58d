/**
 * The write load of one client until the kill: random operations (sessions created, appended to,
 * turned, chatted in, renamed, archived, retried, deleted; exchanges through the proxy; project
 * turns that commit in the project's git), each recorded in the run's model only once the server
 * acknowledged it, so the checks after the restart know what must be there.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, nodesOf, sleep, type MessageNode } from './crash-client.js';
import { Killed, type Client, type TrackedProject, type TrackedSession, type Wire } from './crash-model.js';
import type { CrashRun } from './crash-run.js';

/** A session's tag (see TrackedSession.tag), drawn from the run's PRNG like every other choice. */
const newTag = (run: CrashRun) => `tg${Math.floor(run.random() * 36 ** 6).toString(36).padStart(6, '0')}${Math.floor(run.random() * 36 ** 6).toString(36).padStart(6, '0')}`;

/** After a chat send or retry: waits for the turn to end; its reply is acknowledged once it is in. */
async function awaitChatReply(run: CrashRun, client: Client, session: TrackedSession): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const state = (await call(run, client, 'chat.state', { sessionId: session.id }, 'query')) as { running: boolean };
    if (!state.running) break;
    if (Date.now() > deadline) throw new Error(`the chat turn of ${session.id} is still running`);
    await sleep(50);
  }
  let replied = false;
  for (const node of await nodesOf(run, client, session.id)) {
    if (node.role !== 'assistant' || session.nodes.includes(node.id) || !node.content.includes(session.tag)) continue;
    session.nodes.push(node.id);
    session.assistants.push(node.id);
    replied = true;
  }
  if (replied) run.figures.chats++;
}

/** A proxied exchange on one of the three wires, the model server as upstream; the agent keeps its own key. */
async function proxyExchange(run: CrashRun, client: Client, session: TrackedSession): Promise<void> {
  const wires: Wire[] = ['chat', 'responses', 'anthropic'];
  const wire = wires[Math.floor(run.random() * wires.length)]!;
  const prompt = `proxied ${session.tag} ${run.sequence++}`;
  const stream = run.random() < 0.5;
  const messages = [...session.history, { role: 'user' as const, content: prompt }];
  const path = wire === 'chat' ? '/proxy/openai/v1/chat/completions' : wire === 'responses' ? '/proxy/openai/v1/responses' : '/proxy/anthropic/v1/messages';
  const body =
    wire === 'chat'
      ? { model: 'test-model', stream, messages }
      : wire === 'responses'
        ? { model: 'test-model', stream, input: messages.map((m) => ({ type: 'message', role: m.role, content: m.content })) }
        : { model: 'test-model', stream, max_tokens: 200, messages };
  run.figures.ops++;
  let status: number;
  let text: string;
  try {
    const response = await fetch(`${run.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-agent-own-key', 'x-api-key': 'sk-agent-own-key', 'anthropic-version': '2023-06-01', 'x-entity-memory-token': client.token, 'x-entity-memory-session': session.id },
      body: JSON.stringify(body),
      signal: run.controller.signal,
    });
    status = response.status;
    text = await response.text();
  } catch {
    throw new Killed();
  }
  if (status >= 500) {
    run.figures.errors5xx++;
    run.violation(`proxy ${wire} answered ${status}: ${text.slice(0, 200)}`);
    throw new Error('5xx');
  }
  if (status !== 200) throw new Error(`proxy ${wire}: ${status} ${text.slice(0, 200)}`);
  run.figures.acked++;
  // The recording runs after the last byte, off the agent's path: acknowledged once it shows.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const found = (await nodesOf(run, client, session.id).catch((error: unknown) => {
      if (error instanceof Killed) throw error;
      return [] as MessageNode[];
    })).filter((node) => node.content.includes(prompt) || (node.role === 'assistant' && node.content.includes(session.tag) && !session.nodes.includes(node.id)));
    const reply = found.find((node) => node.role === 'assistant');
    if (reply) {
      session.created = 'acked';
      for (const node of found) if (!session.nodes.includes(node.id)) session.nodes.push(node.id);
      session.history.push({ role: 'user', content: prompt }, { role: 'assistant', content: reply.content });
      run.figures.proxied++;
      return;
    }
    await sleep(50);
  }
  throw new Error(`the exchange in ${session.id} was not recorded within 10 s`);
}

/**
 * A rename or (un)archive: refused, it did not happen, so its pending value is dropped; cut off
 * by the kill, it stays pending until the restart's check; acknowledged, the caller adopts it.
 */
async function acknowledge(session: TrackedSession, update: Promise<unknown>): Promise<void> {
  try {
    await update;
  } catch (error) {
    if (!(error instanceof Killed)) {
      delete session.pendingTitle;
      delete session.pendingArchived;
    }
    throw error;
  }
  delete session.pendingTitle;
  delete session.pendingArchived;
}

/**
 * A turn of a project-bound session as an agent does it: begin, write a file into the project
 * folder, an append, finalize naming the file, so the agent commit runs in the project's git.
 */
async function projectTurn(run: CrashRun, client: Client, session: TrackedSession, project: TrackedProject): Promise<void> {
  await call(run, client, 'turn.begin', { sessionId: session.id }).catch((error: unknown) => {
    if (error instanceof Killed) throw error;
  });
  const file = `c${client.index}-${(run.sequence++).toString(36)}.txt`;
  const content = `agent ${session.tag} ${file}\n`;
  writeFileSync(join(project.dir, file), content);
  const message = (await call(run, client, 'message.append', { sessionId: session.id, message: { role: 'assistant', content: `wrote ${file} ${session.tag}` } })) as { id: string };
  session.nodes.push(message.id);
  session.assistants.push(message.id);
  const expected = [...session.nodes];
  const turn = (await call(run, client, 'turn.finalize', { sessionId: session.id, writtenPaths: [file], commitMessage: `crash project turn ${run.sequence++}` })) as {
    sessionCommit: string | null;
    projectCommit: string | null;
    projectCommitSkipped: { reason: string } | null;
  };
  if (turn.sessionCommit) session.commits.push({ sha: turn.sessionCommit, nodes: expected });
  if (turn.projectCommit) {
    project.commits.push({ sha: turn.projectCommit, file, content });
    run.figures.projectCommits++;
  } else {
    run.figures.projectSkipped++;
    const reason = `project commit skipped: ${turn.projectCommitSkipped?.reason ?? 'no reason'}`;
    run.noteRefusal(reason);
  }
}

/** One random operation of a client; resolves when acknowledged, rejects with Killed when the server died. */
async function operate(run: CrashRun, client: Client): Promise<void> {
  const own = [...run.sessions.values()].filter((s) => s.client === client.index && s.created === 'acked' && s.deleted === 'no' && !s.busy);
  const api = own.filter((s) => s.kind === 'api');
  const roll = run.random();
  if (api.length < 3 || roll < 0.07) {
    const id = `c${client.index}-${(run.sequence++).toString(36)}-${Math.floor(run.random() * 1e9).toString(36)}`;
    const project = run.projects.get(client.index);
    const bound = project !== undefined && run.random() < 0.5 ? project.id : null;
    const session: TrackedSession = { id, client: client.index, tag: newTag(run), kind: 'api', history: [], created: 'pending', deleted: 'no', nodes: [], assistants: [], commits: [], touched: true, busy: true, title: `crash ${id}`, archived: false, project: bound };
    run.sessions.set(id, session);
    await call(run, client, 'session.create', { id, title: `crash ${id}`, ...(bound ? { projectId: bound } : {}) });
    session.created = 'acked';
    session.busy = false;
    return;
  }
  if (roll < 0.15) {
    // A proxied exchange opens its own session (or continues one already recorded).
    const proxied = own.filter((s) => s.kind === 'proxy');
    let session = proxied.length > 0 && run.random() < 0.7 ? proxied[Math.floor(run.random() * proxied.length)]! : null;
    if (!session) {
      const id = `px-c${client.index}-${(run.sequence++).toString(36)}-${Math.floor(run.random() * 1e9).toString(36)}`;
      session = { id, client: client.index, tag: newTag(run), kind: 'proxy', history: [], created: 'pending', deleted: 'no', nodes: [], assistants: [], commits: [], touched: true, busy: false, title: null, archived: false, project: null };
      run.sessions.set(id, session);
    }
    session.busy = true;
    session.touched = true;
    try {
      await proxyExchange(run, client, session);
    } finally {
      session.busy = false;
    }
    return;
  }
  const session = api[Math.floor(run.random() * api.length)]!;
  session.busy = true;
  session.touched = true;
  try {
    if (roll >= 0.3 && roll < 0.6 && session.project !== null) {
      // A project turn's finalize takes a second or two under this load: frequent enough that
      // a short run acknowledges some.
      await projectTurn(run, client, session, run.projects.get(client.index)!);
    } else if (roll < 0.4) {
      const role = run.random() < 0.5 ? 'user' : 'assistant';
      const message = (await call(run, client, 'message.append', { sessionId: session.id, message: { role, content: `${role} ${session.tag} ${run.sequence++} ${'x'.repeat(Math.floor(run.random() * 2000))}` } })) as { id: string };
      session.nodes.push(message.id);
      if (role === 'assistant') session.assistants.push(message.id);
    } else if (roll < 0.5) {
      // A turn: begin, an append, finalize. A begin left running by a kill is the server's to end.
      await call(run, client, 'turn.begin', { sessionId: session.id }).catch((error: unknown) => {
        if (error instanceof Killed) throw error;
      });
      const message = (await call(run, client, 'message.append', { sessionId: session.id, message: { role: 'assistant', content: `turn reply ${session.tag} ${run.sequence++}` } })) as { id: string };
      session.nodes.push(message.id);
      session.assistants.push(message.id);
      const expected = [...session.nodes];
      const turn = (await call(run, client, 'turn.finalize', { sessionId: session.id, commitMessage: `crash turn ${run.sequence++}` })) as { sessionCommit: string | null };
      if (turn.sessionCommit) session.commits.push({ sha: turn.sessionCommit, nodes: expected });
    } else if (roll < 0.6) {
      const expected = [...session.nodes];
      const turn = (await call(run, client, 'turn.finalize', { sessionId: session.id })) as { sessionCommit: string | null };
      if (turn.sessionCommit) session.commits.push({ sha: turn.sessionCommit, nodes: expected });
    } else if (roll < 0.7) {
      // A chat turn: the user message is acknowledged by chat.send, the reply once the turn ends.
      const sent = (await call(run, client, 'chat.send', { sessionId: session.id, content: `chat ${session.tag} ${run.sequence++}` })) as { userMessageId: string };
      session.nodes.push(sent.userMessageId);
      await awaitChatReply(run, client, session);
    } else if (roll < 0.76) {
      const title = `renamed ${run.sequence++}`;
      session.pendingTitle = title;
      await acknowledge(session, call(run, client, 'session.update', { id: session.id, title }));
      session.title = title;
      run.figures.updates++;
    } else if (roll < 0.81) {
      const archived = run.random() < 0.5;
      session.pendingArchived = archived;
      await acknowledge(session, call(run, client, 'session.setArchived', { id: session.id, archived }));
      session.archived = archived;
      run.figures.updates++;
    } else if (roll < 0.9 && session.assistants.length > 0) {
      const assistantId = session.assistants[Math.floor(run.random() * session.assistants.length)]!;
      if (run.random() < 0.5) {
        await call(run, client, 'branch.retry', { sessionId: session.id, assistantId });
      } else {
        await call(run, client, 'chat.retry', { sessionId: session.id, assistantId });
        await awaitChatReply(run, client, session);
      }
      run.figures.retries++;
    } else if (roll < 0.95) {
      session.deleted = 'pending';
      await call(run, client, 'session.delete', { id: session.id });
      session.deleted = 'acked';
    } else {
      // A proxied session deleted too: its recording must not come back, nor its search hits.
      const proxied = own.filter((s) => s.kind === 'proxy');
      const target = proxied.length > 0 ? proxied[Math.floor(run.random() * proxied.length)]! : session;
      target.busy = true;
      try {
        target.deleted = 'pending';
        await call(run, client, 'session.delete', { id: target.id });
        target.deleted = 'acked';
      } finally {
        target.busy = false;
      }
    }
  } finally {
    session.busy = false;
  }
}

/** A client's operations one after another until the kill; a refused one is counted and the next begins. */
export async function drive(run: CrashRun, client: Client, stop: { stopped: boolean }): Promise<void> {
  while (!stop.stopped) {
    try {
      await operate(run, client);
    } catch (error) {
      if (error instanceof Killed) return;
      // A refused operation (a CONFLICT on a turn left running) is not a loss; a 5xx is counted.
      run.figures.refused++;
      const reason = (error as Error).message.replace(/\s+/g, ' ').replace(/"path":"[^"]*"|[a-z0-9]+-c?\d+-[a-z0-9]+-[a-z0-9]+/g, '…').slice(0, 160);
      run.noteRefusal(reason);
    }
  }
}
