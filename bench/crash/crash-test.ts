/**
 * Crash test (issue 21.1): the built server under write load from several clients over HTTP with
 * Bearer tokens (create, append, turn begin/finalize, rename, archive, delete, branch.retry, chat
 * turns and chat retries against the project's test model, and exchanges recorded by the proxy
 * from that model as upstream on all three wires; sessions bound to each client's project, whose
 * turns write a file so the agent commit runs in the project's git), killed with SIGKILL at random moments,
 * restarted each time. After every restart it checks what DESIGN §2 promises: every JSON file
 * parses, every acknowledged turn commit is in git with the nodes acknowledged before it, every
 * acknowledged append (a chat reply once its turn ended, a proxied exchange once its recording
 * shows) is on disk, every acknowledged rename and (un)archive is what meta.json keeps (or the one
 * a kill cut off, which may have happened), the registry (as session.list reports it) equals every meta.json, no session
 * lost, duplicated or half-deleted, `git fsck` clean on the repositories touched and on every
 * project's, every acknowledged agent commit on its project's branch with its file, and, once the
 * search index has caught up, every acknowledged message is found by search and a deleted
 * session by nothing.
 *
 *   node --import tsx bench/crash/crash-test.ts [--kills 50] [--port 4310] [--model-port 4311] [--seed 1]
 *
 * Prints one summary line (lost=: acknowledged work gone; violations=: broken invariants) and
 * exits 1 on any loss or violation. Needs `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type ServerProcess } from '../../e2e/fixtures/server-process.js';
import { AuthStore } from '../../lib/auth/index.js';
import { startModelServer, type ModelServer } from '../../lib/llm/testing/model-server.js';

export interface CrashOptions {
  kills: number;
  port: number;
  /** the test model server (chat's model and the proxy's upstream); by default port + 1 */
  modelPort?: number;
  seed: number;
  clients?: number;
  /** where the data directory goes (removed afterwards when the run is clean) */
  scratch?: string;
  log?: (line: string) => void;
}

export interface CrashFigures {
  kills: number;
  ops: number;
  acked: number;
  sessions: number;
  appends: number;
  commits: number;
  /** acknowledged chat turns (chat.send whose reply is in) and chat retries */
  chats: number;
  /** proxied exchanges whose recording was seen before the kill */
  proxied: number;
  /** acknowledged retries (branch.retry, chat.retry) */
  retries: number;
  /** acknowledged messages looked up in the search index after a restart */
  searched: number;
  /** of those, not found (or found in a deleted session): the index disagreeing with git */
  searchStale: number;
  /** operations answered with a 4xx or not acknowledged in time (a CONFLICT on a turn a kill left running) */
  refused: number;
  /** acknowledged renames and (un)archives (their values are checked after every restart) */
  updates: number;
  /** acknowledged agent commits in the project repositories (turns of project-bound sessions) */
  projectCommits: number;
  /** project turns whose agent commit was skipped (a file a killed turn left makes the tree dirty) */
  projectSkipped: number;
  /** acknowledged work gone after a restart: a session, a node, a commit, a title or archived flag */
  lost: number;
  /** a broken invariant: unparsable JSON, registry ≠ meta.json, a half session, git fsck, a 5xx, search stale */
  violations: number;
  errors5xx: number;
  problems: string[];
}

type Wire = 'chat' | 'responses' | 'anthropic';

interface TrackedSession {
  id: string;
  client: number;
  /** in every message written to it (and so in the model's reply): what search must find */
  tag: string;
  /** api: written through the procedures; proxy: recorded from proxied exchanges only */
  kind: 'api' | 'proxy';
  /** a proxied session's conversation so far, as its agent would send it again */
  history: { role: 'user' | 'assistant'; content: string }[];
  created: 'pending' | 'acked';
  deleted: 'no' | 'pending' | 'acked';
  /** acknowledged appends: node ids */
  nodes: string[];
  assistants: string[];
  /** acknowledged turn commits with the nodes acknowledged before the finalize was sent */
  commits: { sha: string; nodes: string[] }[];
  touched: boolean;
  /** deleted, and search already shown to find nothing of it */
  searchedGone?: boolean;
  /**
   * The last acknowledged title and archived flag (api sessions; a proxied one is named by the
   * title model, so null), and the value of a rename or (un)archive a kill cut off: it may or may
   * not have happened, so after the restart either is right and the kept one is adopted.
   */
  title: string | null;
  archived: boolean;
  /** the project a session was created in (its repo under sessions/projects/<pid>/), or null for Home */
  project: string | null;
  pendingTitle?: string;
  pendingArchived?: boolean;
  /** one operation at a time per session, so its expected state is never ambiguous */
  busy: boolean;
}

interface Client {
  index: number;
  userId: string;
  token: string;
}

/** One client's project: a folder in its user's workspace with its own git, used by that client only. */
interface TrackedProject {
  id: string;
  /** the folder, a git repository with a first commit of the person's */
  dir: string;
  /** acknowledged agent commits: each wrote one file with this content */
  commits: { sha: string; file: string; content: string }[];
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same operation mix. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Killed extends Error {}

export async function runCrashTest(options: CrashOptions): Promise<CrashFigures> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const random = prng(options.seed);
  const scratch = options.scratch ?? tmpdir();
  mkdirSync(scratch, { recursive: true });
  const dataDir = mkdtempSync(join(scratch, 'crash-'));
  const base = `http://127.0.0.1:${options.port}`;
  const figures: CrashFigures = {
    kills: 0,
    ops: 0,
    acked: 0,
    sessions: 0,
    appends: 0,
    commits: 0,
    chats: 0,
    proxied: 0,
    retries: 0,
    searched: 0,
    searchStale: 0,
    refused: 0,
    updates: 0,
    projectCommits: 0,
    projectSkipped: 0,
    lost: 0,
    violations: 0,
    errors5xx: 0,
    problems: [],
  };
  const lost = (message: string) => {
    figures.lost++;
    figures.problems.push(`LOST ${message}`);
  };
  const violation = (message: string) => {
    figures.violations++;
    figures.problems.push(`VIOLATION ${message}`);
  };

  // Three users, four clients (the first user has two), tokens made before the server starts.
  const auth = new AuthStore(join(dataDir, 'auth'));
  const users: { id: string; token: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const user = await auth.users.create({ email: `crash${i}@crash.test`, password: 'crash password long', admin: i === 0 });
    users.push({ id: user.id, token: (await auth.tokens.create(user.id, { name: 'crash' })).token });
  }
  auth.flushSync();
  const clientCount = options.clients ?? 4;
  const clients: Client[] = Array.from({ length: clientCount }, (_, index) => ({ index, userId: users[index % users.length]!.id, token: users[index % users.length]!.token }));
  const tracked = new Map<string, TrackedSession>();
  const projects = new Map<number, TrackedProject>();
  /** why operations were refused, with how often: printed at the end, so a mix that stopped working shows */
  const refusals = new Map<string, number>();
  let sequence = 0;

  let controller = new AbortController();
  async function call(client: Client, procedure: string, input: unknown, kind: 'query' | 'mutation' = 'mutation'): Promise<unknown> {
    figures.ops++;
    const url = kind === 'query' ? `${base}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}` : `${base}/api/trpc/${procedure}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: kind === 'query' ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
        body: kind === 'query' ? undefined : JSON.stringify(input),
        signal: controller.signal,
      });
      text = await response.text();
    } catch {
      throw new Killed();
    }
    if (response.status >= 500) {
      figures.errors5xx++;
      violation(`${procedure} answered ${response.status}: ${text.slice(0, 200)}`);
      throw new Error('5xx');
    }
    if (response.status !== 200) throw new Error(`${procedure}: ${response.status} ${text.slice(0, 200)}`);
    figures.acked++;
    return (JSON.parse(text) as { result: { data: unknown } }).result.data;
  }

  const newTag = () => `tg${Math.floor(random() * 36 ** 6).toString(36).padStart(6, '0')}${Math.floor(random() * 36 ** 6).toString(36).padStart(6, '0')}`;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  type Node = { id: string; role: string; content: string };
  async function nodesOf(client: Client, sessionId: string): Promise<Node[]> {
    const all: Node[] = [];
    let cursor: string | null = null;
    do {
      const page = (await call(client, 'message.nodes', { sessionId, limit: 200, cursor }, 'query')) as { messages: Node[]; nextCursor: string | null };
      all.push(...page.messages);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  /** After a chat send or retry: waits for the turn to end; its reply is acknowledged once it is in. */
  async function awaitChatReply(client: Client, session: TrackedSession): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const state = (await call(client, 'chat.state', { sessionId: session.id }, 'query')) as { running: boolean };
      if (!state.running) break;
      if (Date.now() > deadline) throw new Error(`the chat turn of ${session.id} is still running`);
      await sleep(50);
    }
    let replied = false;
    for (const node of await nodesOf(client, session.id)) {
      if (node.role !== 'assistant' || session.nodes.includes(node.id) || !node.content.includes(session.tag)) continue;
      session.nodes.push(node.id);
      session.assistants.push(node.id);
      replied = true;
    }
    if (replied) figures.chats++;
  }

  /** A proxied exchange on one of the three wires, the model server as upstream; the agent keeps its own key. */
  async function proxyExchange(client: Client, session: TrackedSession): Promise<void> {
    const wires: Wire[] = ['chat', 'responses', 'anthropic'];
    const wire = wires[Math.floor(random() * wires.length)]!;
    const prompt = `proxied ${session.tag} ${sequence++}`;
    const stream = random() < 0.5;
    const messages = [...session.history, { role: 'user' as const, content: prompt }];
    const path = wire === 'chat' ? '/proxy/openai/v1/chat/completions' : wire === 'responses' ? '/proxy/openai/v1/responses' : '/proxy/anthropic/v1/messages';
    const body =
      wire === 'chat'
        ? { model: 'test-model', stream, messages }
        : wire === 'responses'
          ? { model: 'test-model', stream, input: messages.map((m) => ({ type: 'message', role: m.role, content: m.content })) }
          : { model: 'test-model', stream, max_tokens: 200, messages };
    figures.ops++;
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-agent-own-key', 'x-api-key': 'sk-agent-own-key', 'anthropic-version': '2023-06-01', 'x-entity-memory-token': client.token, 'x-entity-memory-session': session.id },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      status = response.status;
      text = await response.text();
    } catch {
      throw new Killed();
    }
    if (status >= 500) {
      figures.errors5xx++;
      violation(`proxy ${wire} answered ${status}: ${text.slice(0, 200)}`);
      throw new Error('5xx');
    }
    if (status !== 200) throw new Error(`proxy ${wire}: ${status} ${text.slice(0, 200)}`);
    figures.acked++;
    // The recording runs after the last byte, off the agent's path: acknowledged once it shows.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const found = (await nodesOf(client, session.id).catch((error: unknown) => {
        if (error instanceof Killed) throw error;
        return [] as Node[];
      })).filter((node) => node.content.includes(prompt) || (node.role === 'assistant' && node.content.includes(session.tag) && !session.nodes.includes(node.id)));
      const reply = found.find((node) => node.role === 'assistant');
      if (reply) {
        session.created = 'acked';
        for (const node of found) if (!session.nodes.includes(node.id)) session.nodes.push(node.id);
        session.history.push({ role: 'user', content: prompt }, { role: 'assistant', content: reply.content });
        figures.proxied++;
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
  async function projectTurn(client: Client, session: TrackedSession, project: TrackedProject): Promise<void> {
    await call(client, 'turn.begin', { sessionId: session.id }).catch((error: unknown) => {
      if (error instanceof Killed) throw error;
    });
    const file = `c${client.index}-${(sequence++).toString(36)}.txt`;
    const content = `agent ${session.tag} ${file}\n`;
    writeFileSync(join(project.dir, file), content);
    const message = (await call(client, 'message.append', { sessionId: session.id, message: { role: 'assistant', content: `wrote ${file} ${session.tag}` } })) as { id: string };
    session.nodes.push(message.id);
    session.assistants.push(message.id);
    const expected = [...session.nodes];
    const turn = (await call(client, 'turn.finalize', { sessionId: session.id, writtenPaths: [file], commitMessage: `crash project turn ${sequence++}` })) as {
      sessionCommit: string | null;
      projectCommit: string | null;
      projectCommitSkipped: { reason: string } | null;
    };
    if (turn.sessionCommit) session.commits.push({ sha: turn.sessionCommit, nodes: expected });
    if (turn.projectCommit) {
      project.commits.push({ sha: turn.projectCommit, file, content });
      figures.projectCommits++;
    } else {
      figures.projectSkipped++;
      const reason = `project commit skipped: ${turn.projectCommitSkipped?.reason ?? 'no reason'}`;
      refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    }
  }

  /** One random operation of a client; resolves when acknowledged, rejects with Killed when the server died. */
  async function operate(client: Client): Promise<void> {
    const own = [...tracked.values()].filter((s) => s.client === client.index && s.created === 'acked' && s.deleted === 'no' && !s.busy);
    const api = own.filter((s) => s.kind === 'api');
    const roll = random();
    if (api.length < 3 || roll < 0.07) {
      const id = `c${client.index}-${(sequence++).toString(36)}-${Math.floor(random() * 1e9).toString(36)}`;
      const project = projects.get(client.index);
      const bound = project !== undefined && random() < 0.5 ? project.id : null;
      const session: TrackedSession = { id, client: client.index, tag: newTag(), kind: 'api', history: [], created: 'pending', deleted: 'no', nodes: [], assistants: [], commits: [], touched: true, busy: true, title: `crash ${id}`, archived: false, project: bound };
      tracked.set(id, session);
      await call(client, 'session.create', { id, title: `crash ${id}`, ...(bound ? { projectId: bound } : {}) });
      session.created = 'acked';
      session.busy = false;
      return;
    }
    if (roll < 0.15) {
      // A proxied exchange opens its own session (or continues one already recorded).
      const proxied = own.filter((s) => s.kind === 'proxy');
      let session = proxied.length > 0 && random() < 0.7 ? proxied[Math.floor(random() * proxied.length)]! : null;
      if (!session) {
        const id = `px-c${client.index}-${(sequence++).toString(36)}-${Math.floor(random() * 1e9).toString(36)}`;
        session = { id, client: client.index, tag: newTag(), kind: 'proxy', history: [], created: 'pending', deleted: 'no', nodes: [], assistants: [], commits: [], touched: true, busy: false, title: null, archived: false, project: null };
        tracked.set(id, session);
      }
      session.busy = true;
      session.touched = true;
      try {
        await proxyExchange(client, session);
      } finally {
        session.busy = false;
      }
      return;
    }
    const session = api[Math.floor(random() * api.length)]!;
    session.busy = true;
    session.touched = true;
    try {
      if (roll >= 0.3 && roll < 0.6 && session.project !== null) {
        // A project turn's finalize takes a second or two under this load: frequent enough that
        // a short run acknowledges some.
        await projectTurn(client, session, projects.get(client.index)!);
      } else if (roll < 0.4) {
        const role = random() < 0.5 ? 'user' : 'assistant';
        const message = (await call(client, 'message.append', { sessionId: session.id, message: { role, content: `${role} ${session.tag} ${sequence++} ${'x'.repeat(Math.floor(random() * 2000))}` } })) as { id: string };
        session.nodes.push(message.id);
        if (role === 'assistant') session.assistants.push(message.id);
      } else if (roll < 0.5) {
        // A turn: begin, an append, finalize. A begin left running by a kill is the server's to end.
        await call(client, 'turn.begin', { sessionId: session.id }).catch((error: unknown) => {
          if (error instanceof Killed) throw error;
        });
        const message = (await call(client, 'message.append', { sessionId: session.id, message: { role: 'assistant', content: `turn reply ${session.tag} ${sequence++}` } })) as { id: string };
        session.nodes.push(message.id);
        session.assistants.push(message.id);
        const expected = [...session.nodes];
        const turn = (await call(client, 'turn.finalize', { sessionId: session.id, commitMessage: `crash turn ${sequence++}` })) as { sessionCommit: string | null };
        if (turn.sessionCommit) session.commits.push({ sha: turn.sessionCommit, nodes: expected });
      } else if (roll < 0.6) {
        const expected = [...session.nodes];
        const turn = (await call(client, 'turn.finalize', { sessionId: session.id })) as { sessionCommit: string | null };
        if (turn.sessionCommit) session.commits.push({ sha: turn.sessionCommit, nodes: expected });
      } else if (roll < 0.7) {
        // A chat turn: the user message is acknowledged by chat.send, the reply once the turn ends.
        const sent = (await call(client, 'chat.send', { sessionId: session.id, content: `chat ${session.tag} ${sequence++}` })) as { userMessageId: string };
        session.nodes.push(sent.userMessageId);
        await awaitChatReply(client, session);
      } else if (roll < 0.76) {
        const title = `renamed ${sequence++}`;
        session.pendingTitle = title;
        await acknowledge(session, call(client, 'session.update', { id: session.id, title }));
        session.title = title;
        figures.updates++;
      } else if (roll < 0.81) {
        const archived = random() < 0.5;
        session.pendingArchived = archived;
        await acknowledge(session, call(client, 'session.setArchived', { id: session.id, archived }));
        session.archived = archived;
        figures.updates++;
      } else if (roll < 0.9 && session.assistants.length > 0) {
        const assistantId = session.assistants[Math.floor(random() * session.assistants.length)]!;
        if (random() < 0.5) {
          await call(client, 'branch.retry', { sessionId: session.id, assistantId });
        } else {
          await call(client, 'chat.retry', { sessionId: session.id, assistantId });
          await awaitChatReply(client, session);
        }
        figures.retries++;
      } else if (roll < 0.95) {
        session.deleted = 'pending';
        await call(client, 'session.delete', { id: session.id });
        session.deleted = 'acked';
      } else {
        // A proxied session deleted too: its recording must not come back, nor its search hits.
        const proxied = own.filter((s) => s.kind === 'proxy');
        const target = proxied.length > 0 ? proxied[Math.floor(random() * proxied.length)]! : session;
        target.busy = true;
        try {
          target.deleted = 'pending';
          await call(client, 'session.delete', { id: target.id });
          target.deleted = 'acked';
        } finally {
          target.busy = false;
        }
      }
    } finally {
      session.busy = false;
    }
  }

  async function drive(client: Client, stop: { stopped: boolean }): Promise<void> {
    while (!stop.stopped) {
      try {
        await operate(client);
      } catch (error) {
        if (error instanceof Killed) return;
        // A refused operation (a CONFLICT on a turn left running) is not a loss; a 5xx is counted.
        figures.refused++;
        const reason = (error as Error).message.replace(/\s+/g, ' ').replace(/"path":"[^"]*"|[a-z0-9]+-c?\d+-[a-z0-9]+-[a-z0-9]+/g, '…').slice(0, 160);
        refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
      }
    }
  }

  function listAll(client: Client): Promise<{ id: string; title: string; archived: boolean; pinned: boolean; status: string }[]> {
    return (async () => {
      const rows: { id: string; title: string; archived: boolean; pinned: boolean; status: string }[] = [];
      let cursor: string | null = null;
      do {
        const page = (await call(client, 'session.list', { scope: 'all', limit: 200, cursor }, 'query')) as { rows: typeof rows; nextCursor: string | null };
        rows.push(...page.rows);
        cursor = page.nextCursor;
      } while (cursor);
      return rows;
    })();
  }

  function walkJson(dir: string): void {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) {
        if (name !== '.git') walkJson(path);
      } else if (name.endsWith('.json')) {
        try {
          JSON.parse(readFileSync(path, 'utf8'));
        } catch (error) {
          violation(`${path.slice(dataDir.length)} does not parse: ${(error as Error).message}`);
        }
      }
    }
  }

  const git = (repo: string, args: string[]): { ok: boolean; output: string } => {
    try {
      return { ok: true, output: execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string };
      return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  };

  /** Every message id search finds for a tag (all pages, archived included). */
  async function searchHits(client: Client, tag: string): Promise<{ sessions: Set<string>; messages: Set<string> }> {
    const sessions = new Set<string>();
    const messages = new Set<string>();
    let cursor: string | null = null;
    do {
      const page = (await call(client, 'session.search', { q: tag, scope: 'all', limit: 100, cursor }, 'query')) as { hits: { sessionId: string; messageId: string | null }[]; nextCursor: string | null };
      for (const hit of page.hits) {
        sessions.add(hit.sessionId);
        if (hit.messageId) messages.add(hit.messageId);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return { sessions, messages };
  }

  /** The index is rebuilt after a kill (the file is left unmarked): wait until it says it caught up. */
  async function searchCaughtUp(client: Client, round: number): Promise<boolean> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const status = (await call(client, 'session.searchStatus', undefined, 'query')) as { state: string };
      if (status.state === 'ready') return true;
      if (Date.now() > deadline) {
        violation(`round ${round}: the search index of ${client.userId} still catching up after 120 s`);
        return false;
      }
      await sleep(100);
    }
  }

  async function checkSearch(client: Client, session: TrackedSession, round: number): Promise<void> {
    const hits = await searchHits(client, session.tag);
    if (session.deleted === 'acked') {
      if (hits.sessions.size > 0) {
        figures.searchStale++;
        violation(`round ${round}: search finds deleted session ${session.id} (${[...hits.sessions].join(', ')})`);
      }
      return;
    }
    for (const nodeId of session.nodes) {
      figures.searched++;
      if (!hits.messages.has(nodeId)) {
        figures.searchStale++;
        violation(`round ${round}: search does not find message ${nodeId} of ${session.id}`);
      }
    }
  }

  /**
   * The title and archived flag meta.json kept (the registry is compared with meta.json above):
   * the last acknowledged value, or that of the update a kill cut off, which is then adopted.
   */
  function checkUpdates(session: TrackedSession, meta: Record<string, unknown>, round: number): void {
    if (session.title !== null) {
      const allowed = session.pendingTitle === undefined ? [session.title] : [session.title, session.pendingTitle];
      const kept = meta['title'];
      if (typeof kept !== 'string' || !allowed.includes(kept)) lost(`round ${round}: title of ${session.id} is ${JSON.stringify(kept)}, acknowledged ${JSON.stringify(session.title)}`);
      // What the server kept is the baseline from now on: a loss is counted once, not every round.
      if (typeof kept === 'string') session.title = kept;
    }
    const allowed = session.pendingArchived === undefined ? [session.archived] : [session.archived, session.pendingArchived];
    const kept = meta['archived'];
    if (typeof kept !== 'boolean' || !allowed.includes(kept)) lost(`round ${round}: archived of ${session.id} is ${JSON.stringify(kept)}, acknowledged ${session.archived}`);
    if (typeof kept === 'boolean') session.archived = kept;
    delete session.pendingTitle;
    delete session.pendingArchived;
  }

  async function verify(round: number): Promise<void> {
    walkJson(dataDir);
    const seenUsers = new Set<string>();
    for (const client of clients) {
      if (seenUsers.has(client.userId)) continue;
      seenUsers.add(client.userId);
      const sessionsDir = join(dataDir, 'users', client.userId, 'sessions');
      const rows = await listAll(client);
      const searchable = await searchCaughtUp(client, round);
      // Searched this round: the sessions written to since the last restart, a few others, the newly deleted.
      const toSearch: TrackedSession[] = [];
      const listed = new Map<string, (typeof rows)[number]>();
      for (const row of rows) {
        if (listed.has(row.id)) violation(`round ${round}: ${row.id} listed twice`);
        listed.set(row.id, row);
      }
      // On disk: a session is a directory with meta.json and a git repository, at sessions/<sid>
      // or, bound to a project, at sessions/projects/<pid>/<sid>.
      const onDisk = new Map<string, Record<string, unknown>>();
      const repoDirs = new Map<string, string>();
      const scan = (parent: string) => {
        if (!existsSync(parent)) return;
        for (const name of readdirSync(parent)) {
          const dir = join(parent, name);
          if (name.startsWith('.') || (parent === sessionsDir && name === 'projects') || !statSync(dir).isDirectory()) continue;
          const hasMeta = existsSync(join(dir, 'meta.json'));
          const hasGit = existsSync(join(dir, '.git'));
          if (!hasMeta || !hasGit) {
            violation(`round ${round}: ${dir.slice(sessionsDir.length + 1)} half there (meta.json ${hasMeta}, .git ${hasGit})`);
            continue;
          }
          if (repoDirs.has(name)) violation(`round ${round}: ${name} on disk twice (${repoDirs.get(name)!.slice(sessionsDir.length + 1)}, ${dir.slice(sessionsDir.length + 1)})`);
          repoDirs.set(name, dir);
          try {
            onDisk.set(name, JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>);
          } catch {
            // counted by walkJson
          }
        }
      };
      scan(sessionsDir);
      const projectsDir = join(sessionsDir, 'projects');
      if (existsSync(projectsDir)) for (const projectId of readdirSync(projectsDir)) if (statSync(join(projectsDir, projectId)).isDirectory()) scan(join(projectsDir, projectId));
      for (const [id, meta] of onDisk) {
        const row = listed.get(id);
        if (!row) {
          violation(`round ${round}: ${id} on disk but not in the registry`);
          continue;
        }
        for (const [rowKey, metaKey] of [['title', 'title'], ['archived', 'archived'], ['pinned', 'pinned'], ['status', 'status']] as const) {
          if (row[rowKey] !== meta[metaKey]) violation(`round ${round}: ${id} registry ${rowKey}=${JSON.stringify(row[rowKey])} but meta.json ${JSON.stringify(meta[metaKey])}`);
        }
      }
      for (const id of listed.keys()) if (!onDisk.has(id)) violation(`round ${round}: ${id} in the registry but not on disk`);

      for (const session of tracked.values()) {
        if (clients[session.client]!.userId !== client.userId) continue;
        const present = onDisk.has(session.id);
        if (session.created === 'pending') {
          // Unacknowledged: either outcome is fine; adopt what the server kept.
          if (!present) {
            tracked.delete(session.id);
            continue;
          }
          session.created = 'acked';
        }
        if (session.deleted === 'pending') {
          session.deleted = present ? 'no' : 'acked';
        }
        if (session.deleted === 'acked') {
          if (present) violation(`round ${round}: ${session.id} deleted (acknowledged) but back`);
          if (!session.searchedGone) {
            toSearch.push(session);
            session.searchedGone = true;
          }
          continue;
        }
        if (!present) {
          lost(`round ${round}: session ${session.id}`);
          tracked.delete(session.id);
          continue;
        }
        checkUpdates(session, onDisk.get(session.id)!, round);
        const dir = repoDirs.get(session.id)!;
        if (session.project !== null && dir !== join(projectsDir, session.project, session.id)) violation(`round ${round}: ${session.id} of project ${session.project} is at ${dir.slice(sessionsDir.length + 1)}`);
        const historyFiles = existsSync(join(dir, 'history')) ? readdirSync(join(dir, 'history')) : [];
        const hasNode = (nodeId: string) => historyFiles.some((name) => name.includes(nodeId));
        for (const nodeId of session.nodes) if (!hasNode(nodeId)) lost(`round ${round}: node ${nodeId} of ${session.id}`);
        for (const commit of session.commits) {
          if (!git(dir, ['cat-file', '-e', `${commit.sha}^{commit}`]).ok) {
            lost(`round ${round}: commit ${commit.sha} of ${session.id}`);
            continue;
          }
          const tree = git(dir, ['ls-tree', '-r', '--name-only', commit.sha, '--', 'history']).output;
          for (const nodeId of commit.nodes) if (!tree.includes(nodeId)) lost(`round ${round}: node ${nodeId} missing from commit ${commit.sha} of ${session.id}`);
        }
        if (session.touched || random() < 0.05) toSearch.push(session);
        if (session.touched) {
          const fsck = git(dir, ['fsck', '--no-dangling', '--no-progress']);
          if (!fsck.ok) violation(`round ${round}: git fsck ${session.id}: ${fsck.output.slice(0, 300)}`);
          session.touched = false;
        }
      }
      if (searchable) for (const session of toSearch) await checkSearch(client, session, round);
    }
    for (const [index, project] of projects) await verifyProject(clients[index]!, project, round);
  }

  /**
   * A project after a restart: still registered, `git fsck` clean, every acknowledged agent commit
   * on its branch with the file it wrote. Then the person commits what killed turns left in the
   * folder, as someone would: a dirty tree would skip every later agent commit.
   */
  async function verifyProject(client: Client, project: TrackedProject, round: number): Promise<void> {
    const listed = (await call(client, 'project.list', undefined, 'query')) as { id: string }[];
    if (!listed.some((row) => row.id === project.id)) lost(`round ${round}: project ${project.id} of client ${client.index} no longer listed`);
    const fsck = git(project.dir, ['fsck', '--no-dangling', '--no-progress']);
    if (!fsck.ok) violation(`round ${round}: git fsck project ${project.id}: ${fsck.output.slice(0, 300)}`);
    for (const commit of project.commits) {
      if (!git(project.dir, ['cat-file', '-e', `${commit.sha}^{commit}`]).ok) {
        lost(`round ${round}: agent commit ${commit.sha} of project ${project.id}`);
        continue;
      }
      if (!git(project.dir, ['merge-base', '--is-ancestor', commit.sha, 'HEAD']).ok) lost(`round ${round}: agent commit ${commit.sha} of project ${project.id} is off its branch`);
      const shown = git(project.dir, ['show', `${commit.sha}:${commit.file}`]);
      if (!shown.ok || shown.output !== commit.content) lost(`round ${round}: ${commit.file} in agent commit ${commit.sha} of project ${project.id}`);
    }
    // The killed server's git may still be finishing an agent commit (a SIGKILL does not reach its
    // children): what looked dirty can be committed by the time the person adds it.
    const add = git(project.dir, ['add', '-A']);
    if (!add.ok) violation(`round ${round}: git add in project ${project.id}: ${add.output.slice(0, 300)}`);
    else if (!git(project.dir, ['diff', '--cached', '--quiet']).ok) {
      const commit = git(project.dir, ['-c', 'user.name=crash person', '-c', 'user.email=person@crash.test', 'commit', '-q', '-m', `person: what round ${round}'s kill left`]);
      if (!commit.ok) violation(`round ${round}: the person's commit in project ${project.id} failed: ${commit.output.slice(0, 300)}`);
    }
  }

  let server: ServerProcess | null = null;
  const model: ModelServer = await startModelServer(options.modelPort ?? options.port + 1);
  const env = {
    OPENPROGRAM_LLM_BASE_URL: model.url,
    OPENPROGRAM_LLM_MODEL: 'test-model',
    OPENPROGRAM_LLM_TITLE_MODEL: 'test-title-model',
    OPENPROGRAM_PROXY_OPENAI_URL: model.url,
    OPENPROGRAM_PROXY_ANTHROPIC_URL: model.root,
  };
  const start = async () => {
    controller = new AbortController();
    server = startServer({ port: options.port, host: '127.0.0.1', dataDir, runtime: 'node', env });
    await server.ready(120_000);
  };
  try {
    await start();
    // Each client's project: a repository the person made in the workspace, then registered.
    for (const client of clients) {
      const dir = join(dataDir, 'workspaces', client.userId, `crash-p${client.index}`);
      mkdirSync(dir, { recursive: true });
      for (const args of [['init', '-q', '-b', 'main'], ['-c', 'user.name=crash person', '-c', 'user.email=person@crash.test', 'commit', '-q', '--allow-empty', '-m', 'first']]) {
        const done = git(dir, args);
        if (!done.ok) throw new Error(`git ${args[0]} in ${dir}: ${done.output}`);
      }
      const created = (await call(client, 'project.create', { path: dir, name: `crash p${client.index}` })) as { id: string; path: string };
      projects.set(client.index, { id: created.id, dir: created.path, commits: [] });
    }
    for (let round = 1; round <= options.kills; round++) {
      const stop = { stopped: false };
      const drivers = clients.map((client) => drive(client, stop));
      // Early rounds die soon after start-up (recovery mid-flight), later ones under steady load.
      await new Promise((resolve) => setTimeout(resolve, 500 + Math.floor(random() * 3_500)));
      server!.child.kill('SIGKILL');
      await server!.exited;
      stop.stopped = true;
      controller.abort();
      await Promise.all(drivers);
      figures.kills++;
      await start();
      const before = figures.problems.length;
      await verify(round);
      for (const problem of figures.problems.slice(before)) log(`crash: ${problem}`);
      if (round % 10 === 0) log(`crash: ${round}/${options.kills} kills, ${figures.acked} acknowledged, ${figures.lost} lost, ${figures.violations} violations`);
    }
  } finally {
    const current = server as ServerProcess | null;
    if (current) await current.stop('SIGTERM');
    await model.close();
  }
  for (const session of tracked.values()) {
    if (session.deleted === 'acked') continue;
    figures.sessions++;
    figures.appends += session.nodes.length;
    figures.commits += session.commits.length;
  }
  for (const [reason, count] of [...refusals].sort((a, b) => b[1] - a[1]).slice(0, 8)) log(`crash: refused ${count}× ${reason}`);
  if (figures.lost === 0 && figures.violations === 0) rmSync(dataDir, { recursive: true, force: true });
  else log(`crash: data directory kept in ${dataDir}`);
  return figures;
}

export function crashSummary(figures: CrashFigures): string {
  return (
    `crash: kills=${figures.kills} ops=${figures.ops} acked=${figures.acked} sessions=${figures.sessions} appends=${figures.appends} commits=${figures.commits} ` +
    `chats=${figures.chats} proxied=${figures.proxied} retries=${figures.retries} updates=${figures.updates} project_commits=${figures.projectCommits} project_skipped=${figures.projectSkipped} searched=${figures.searched} search_stale=${figures.searchStale} refused=${figures.refused} ` +
    `lost=${figures.lost} violations=${figures.violations} 5xx=${figures.errors5xx}`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string, fallback: number) => {
    const at = process.argv.indexOf(`--${name}`);
    return at >= 0 ? Number(process.argv[at + 1]) : fallback;
  };
  const port = arg('port', Number(process.env['CRASH_PORT'] ?? 3290));
  const figures = await runCrashTest({ kills: arg('kills', 50), port, modelPort: arg('model-port', port + 1), seed: arg('seed', 1) });
  process.stdout.write(`${crashSummary(figures)}\n`);
  process.exit(figures.lost === 0 && figures.violations === 0 ? 0 : 1);
}
