import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { startModelServer, type ModelServer } from '../../lib/llm/testing/model-server';
import { CLAUDE, claudeEnv, runAgent } from '../fixtures/real-agents';
import { mutate } from '../fixtures/trpc';
import { startTestCluster, type TestCluster } from './harness';
import { adminAndTokenUser, chatWriter, importWriter, runMover, shardOf, trpcQuery } from './move-writers-kit';

// Issue 28's must-show with the REAL Claude Code: a user moved through HAProxy while Claude Code
// (installed from npm) records through the recording proxy with the user's stored key, an import
// uploads and a chat turn streams. Every writer meets 503 + Retry-After while the user is frozen
// (Claude Code's own SDK waits and asks again: nothing here retries for it), goes on at the new
// owner, and no acknowledged write is lost. Claude Code reaches HAProxy through a tap that only
// notes each answer's status, so the test can see the 503s it was given.
test.describe.configure({ mode: 'serial' });

const EMAIL = 'claude-mover@cluster.test';
const PASSWORD = 'claude-mover-password';
const STORED_KEY = 'sk-ant-stored-for-the-move';

let model: ModelServer;
let cluster: TestCluster;
let admin: APIRequestContext;
let user: { id: string; token: string };
let scratch: string;
let tap: {
  url: string;
  seen: { status: number; retryAfter: string | null }[];
  /** requests that open a run (no tool result in them yet) whose answers have not ended */
  openingRuns: number;
  close(): Promise<void>;
};

function moveUser(args: string[]) {
  const moverDir = join(scratch, 'mover');
  mkdirSync(moverDir, { recursive: true });
  return runMover(cluster, moverDir, args);
}

/**
 * A pass-through to HAProxy that notes each answer's status and Retry-After (bytes untouched,
 * streamed), and how many of Claude Code's requests that open a run are being answered: the move
 * starts during one, so the run's next request (its tool result, sent right after) meets the freeze.
 */
async function startTap(target: string): Promise<typeof tap> {
  const seen: { status: number; retryAfter: string | null }[] = [];
  const state = { openingRuns: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (!req.url?.includes('/messages') || req.url.includes('count_tokens') || body.includes('tool_result')) return;
      state.openingRuns++;
      res.once('close', () => state.openingRuns--);
    });
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: { ...req.headers, host: new URL(target).host } }, (answer) => {
      const retryAfter = answer.headers['retry-after'];
      seen.push({ status: answer.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  const from = Number(process.env.E2E_TAP_PORT ?? 0);
  await new Promise<void>((resolve) => server.listen(from, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    get openingRuns() {
      return state.openingRuns;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ClaudeRun {
  sessionId: string;
  file: string;
  output: string;
}

/** Real Claude Code, one `claude -p` after another (each: a Write call, its result, the answer), until stopped; acknowledged = it exited 0. */
function claudeCodeWriter(): { acked: ClaudeRun[]; stop(): Promise<void> } {
  let stopped = false;
  const acked: ClaudeRun[] = [];
  const home = join(scratch, 'claude-home');
  const work = join(scratch, 'claude-work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const running = (async () => {
    for (let i = 0; !stopped; i++) {
      const sessionId = randomUUID();
      const file = join(work, `run-${i}.txt`);
      // Slow chunks: an exchange is in flight for a while, so the freeze meets Claude Code's requests.
      const prompt = `claude run ${i} [[delay:120]] [[tool:Write {"file_path":"${file}","content":"run ${i}"}]]`;
      const run = await runAgent(CLAUDE, ['-p', '--session-id', sessionId, '--permission-mode', 'acceptEdits', '--allowedTools', 'Write', '--', prompt], claudeEnv(home, user.token, tap.url), work).done;
      if (run.code !== 0) throw new Error(`claude run ${i} exited ${run.code}: ${run.output}`);
      acked.push({ sessionId: `cc-${sessionId}`, file, output: run.output });
    }
  })();
  return {
    acked,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

const trpc = <T>(path: string, input: unknown) => trpcQuery<T>(cluster, user.token, path, input);

test.beforeAll(async () => {
  test.setTimeout(180_000);
  scratch = mkdtempSync(join(process.env.E2E_SCRATCH_DIR ?? '/tmp', `cluster-claude-${process.pid}-`));
  model = await startModelServer();
  cluster = await startTestCluster({
    instances: 2,
    env: { OPENPROGRAM_LLM_BASE_URL: model.url, OPENPROGRAM_LLM_MODEL: 'test-model', OPENPROGRAM_PROXY_ANTHROPIC_URL: model.root },
  });
  tap = await startTap(cluster.url);
  let api: APIRequestContext;
  ({ admin, api, user } = await adminAndTokenUser(cluster, { email: EMAIL, password: PASSWORD }, 'claude code'));
  // Claude Code sends our token as its Anthropic key: the proxy sends this stored key upstream, and it moves with the user.
  expect((await mutate(api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: STORED_KEY })).status).toBe(200);
  await api.dispose();
});

test.afterAll(async () => {
  await admin?.dispose();
  await tap?.close();
  await cluster?.stop();
  await model?.close();
});

test('real Claude Code records through HAProxy while its user is moved, an import uploads and a chat turn streams: 503 + Retry-After while frozen, on at the new owner, 0 acknowledged writes lost', async () => {
  test.setTimeout(420_000);
  const before = await shardOf(cluster, user.id);
  const target = [...cluster.instances.keys()].find((id) => id !== before.shard)!;

  const claude = claudeCodeWriter();
  const importer = importWriter(cluster, user.token);
  // A chat turn streams for some three seconds after chat.send has answered: the freeze waits for it, and meanwhile refuses the others.
  const chat = chatWriter(cluster, user.token, (id) => `chat ${id} [[delay:100]] [[words:30]]`);
  try {
    await expect.poll(() => claude.acked.length, { timeout: 180_000 }).toBeGreaterThan(0);
    await expect.poll(() => Math.min(importer.acked.length, chat.acked.length), { timeout: 60_000 }).toBeGreaterThan(1);

    // Moved while a run's opening request is being answered (slowly, [[delay:120]]): the freeze waits for
    // that exchange, and the run's next request, its tool result, comes while the user is still frozen.
    await expect.poll(() => tap.openingRuns, { timeout: 60_000, intervals: [20] }).toBeGreaterThan(0);
    const tapBefore = tap.seen.length;
    const move = await moveUser([user.id, target]);
    expect(move.stderr).toBe('');
    expect(move.code).toBe(0);
    expect(move.last?.['result']).toMatchObject({ status: 'done', from: before.shard, to: target });
    expect(await shardOf(cluster, user.id)).toEqual({ shard: target, epoch: before.epoch + 1 });

    // Each writer goes on at the new owner: Claude Code finishes runs there with the key that moved with the user.
    const atFlip = { claude: claude.acked.length, importer: importer.acked.length, chat: chat.acked.length };
    await expect.poll(() => claude.acked.length > atFlip.claude + 1 && importer.acked.length > atFlip.importer + 2 && chat.acked.length > atFlip.chat + 1, { timeout: 180_000 }).toBe(true);
    // Claude Code was told 503 + Retry-After while its user was frozen, and asked again by itself.
    const frozenForClaude = tap.seen.slice(tapBefore).filter((seen) => seen.status === 503);
    expect(frozenForClaude.length, 'Claude Code saw 503 while frozen').toBeGreaterThan(0);
    expect([...new Set(frozenForClaude.map((seen) => seen.retryAfter))], "Claude Code's Retry-After").toEqual(['2']);
  } finally {
    await Promise.all([claude.stop(), importer.stop(), chat.stop()]);
  }
  for (const [name, refused] of [['import', importer], ['chat', chat]] as const) {
    expect(refused.frozen.length, `${name} saw 503 while frozen`).toBeGreaterThan(0);
    expect([...new Set(refused.frozen)], `${name}'s Retry-After`).toEqual(['2']);
  }

  // Nothing acknowledged is missing on the new owner, read through HAProxy.
  for (const run of claude.acked) {
    expect(existsSync(run.file) && readFileSync(run.file, 'utf8'), `${run.sessionId}'s Write ran`).toBeTruthy();
    const branch = await trpc<{ role: string; content: string; toolCalls: { name: string }[] }[]>('message.branch', { sessionId: run.sessionId });
    expect(branch.status, `${run.sessionId} on the new owner`).toBe(200);
    expect(branch.data.map((message) => message.role), run.sessionId).toEqual(['user', 'assistant', 'assistant']);
    expect(branch.data[1]!.toolCalls.map((call) => call.name)).toEqual(['Write']);
    expect(branch.data[2]!.content).toContain('Tool result:');
  }
  for (const id of importer.acked) expect((await trpc<{ id: string }>('session.get', { id: `cc-${id}` })).status, `import ${id}`).toBe(200);
  for (const [id, sessionId] of chat.sessions) {
    if (!chat.acked.includes(id)) continue;
    const branch = await trpc<{ role: string; content: string }[]>('message.branch', { sessionId });
    expect(branch.data.map((message) => message.role), `chat ${id}`).toEqual(['user', 'assistant']);
    expect(branch.data[1]!.content, `chat ${id}'s reply whole`).toContain('word30');
  }
  // The stored key went upstream for every recorded exchange, after the move too; our token never did.
  const upstream = model.requests.filter((received) => received.wire === 'anthropic');
  expect(upstream.length).toBeGreaterThan(0);
  expect(upstream.every((received) => received.headers['x-api-key'] === STORED_KEY)).toBe(true);
});
