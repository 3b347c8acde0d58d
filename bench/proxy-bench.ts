/**
 * The recording proxy's figures (DESIGN §9), against the built server and the loopback model:
 * - proxy_added_ttfb_p50_ms: first body byte through /proxy/anthropic/v1/messages minus first
 *   body byte straight from the model, the same streamed request (~50 chunks), alternated;
 * - proxy_added_p99_ms: 20 concurrent clients, each alternating a straight and a proxied exchange
 *   of the same body (~50 chunks); each proxied exchange's whole duration minus its pair's is
 *   its added time; the p99 of those 1,000 (proxy_added_p50_ms beside it);
 * - proxy_record_p50_ms: the last byte of the answer until the exchange is a committed turn
 *   (turn_committed on the user's event stream), in a conversation that grows call by call.
 * Beside them, the same run's baselines: proxy_direct_* (straight to the model), proxy_floor_*
 * (the same calls through bench/minimal-proxy.cjs, the least an extra Node hop costs on this
 * machine, nothing recorded), and the server's
 * own event-loop delay while 20 clients go through it (proxy_loop_*: loop-delay-probe.cjs), so a
 * figure taken on a loaded machine can be read against what the machine gave everyone.
 * Needs `npm run build` first. BENCH_CPU_PROF=<dir>: the server writes its CPU profile of the 20 clients there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuthStore } from '../lib/auth/index.js';
import { openEventStream } from './http-client.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer } from './server-bench.js';
import { p50, p99, round } from './store-bench.js';
import { requireBuild } from './figures.js';

const SEQUENTIAL = 200;
const WARMUP = 20;
const CLIENTS = 20;
/** pairs per client after the warm-up: 20 × 50 = 1,000 samples, so the p99 is the 10th-worst, not the 3rd */
const PAIRS_PER_CLIENT = 50;
const PAIR_WARMUP = 3;
const RECORDS = 60;

interface Timing {
  ttfb: number;
  total: number;
  /** performance.now() at the last byte */
  endedAt: number;
  text: string;
}

/** One POST, timed: first body byte and last byte, from the moment the request is written. */
function timedPost(url: string, agent: http.Agent, headers: Record<string, string>, body: string): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      let ttfb = -1;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (ttfb < 0) ttfb = performance.now() - start;
        text += chunk;
      });
      res.on('end', () => {
        const endedAt = performance.now();
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode} ${text.slice(0, 200)}`));
        else resolve({ ttfb, total: endedAt - start, endedAt, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A Messages request whose answer streams in about 50 chunks. */
function streamedBody(prompt: string, messages: unknown[] = []): string {
  return JSON.stringify({ model: 'bench-model', max_tokens: 1000, stream: true, system: 'You are a benchmark.', tools: [{ name: 'Write', input_schema: { type: 'object' } }], messages: [...messages, { role: 'user', content: prompt }] });
}

/** The text an agent would send back: the stream's text deltas joined. */
function textOf(sse: string): string {
  let text = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = JSON.parse(line.slice(6)) as { type?: string; delta?: { type?: string; text?: string } };
    if (data.type === 'content_block_delta' && data.delta?.type === 'text_delta') text += data.delta.text ?? '';
  }
  return text;
}

const MODEL_PORT = Number(process.env['BENCH_MODEL_PORT'] ?? 3198);

/**
 * The loopback model in a process of its own, as a real upstream is: straight and proxied calls
 * then both cross a process boundary, and the difference is the proxy's hop.
 */
async function startModelProcess(): Promise<{ root: string; url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/llm/testing/model-server.ts', String(MODEL_PORT)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the model server exited (${code})`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('model server at')) resolve();
    });
  });
  const root = `http://127.0.0.1:${MODEL_PORT}`;
  return { root, url: `${root}/v1`, child };
}

const FLOOR_PORT = Number(process.env['BENCH_FLOOR_PORT'] ?? 3197);

/** bench/minimal-proxy.cjs in front of the same model: the floor one more process hop costs here. */
async function startMinimalProxy(modelRoot: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join('bench', 'minimal-proxy.cjs'), String(FLOOR_PORT), modelRoot], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the minimal proxy exited (${code})`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  return { url: `http://127.0.0.1:${FLOOR_PORT}/v1/messages`, child };
}

interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** The server's event-loop delay since the last call (the probe answers SIGUSR2 with a file). */
async function loopDelay(server: ChildProcess, file: string): Promise<LoopDelay> {
  const before = existsSync(file) ? statSync(file).mtimeMs : 0;
  server.kill('SIGUSR2');
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (existsSync(file) && statSync(file).mtimeMs !== before) {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as LoopDelay;
      } catch {
        // caught mid-write: read again
      }
    }
  }
  throw new Error('the server did not report its event-loop delay');
}

export async function benchProxy(): Promise<Record<string, number>> {
  requireBuild('the proxy figures');
  const model = await startModelProcess();
  const floor = await startMinimalProxy(model.root);
  const dataDir = scratchDir('em-bench-proxy-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const user = await auth.users.create({ email: 'proxy@bench.test', password: 'bench password long', admin: true });
  const token = (await auth.tokens.create(user.id, { name: 'bench' })).token;
  auth.flushSync();
  let server: ChildProcess | null = null;
  let stream: http.ClientRequest | null = null;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  try {
    const probeFile = join(dataDir, 'loop-delay.json');
    server = await startServer(dataDir, {
      OPENPROGRAM_PROXY_ANTHROPIC_URL: model.root,
      OPENPROGRAM_PROXY_OPENAI_URL: model.url,
      NODE_OPTIONS: `--require ${join(process.cwd(), 'bench', 'loop-delay-probe.cjs')}`,
      LOOP_PROBE_FILE: probeFile,
      ...(process.env['BENCH_CPU_PROF'] ? { CPU_PROFILE_DIR: process.env['BENCH_CPU_PROF'] } : {}),
    });
    const direct = `${model.root}/v1/messages`;
    const proxied = `${BASE}/proxy/anthropic/v1/messages`;
    const directHeaders = { 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01' };
    // Pass-through: the agent's own key, our token beside it; one session per phase, retries in it.
    const proxyHeaders = (session: string) => ({ ...directHeaders, 'x-entity-memory-token': token, 'x-entity-memory-session': session });
    let committed: ((at: number) => void) | null = null;
    /** the session whose commit `committed` waits for */
    let waitingFor = '';
    let lastCommitAt = 0;
    stream = await openEventStream(BASE, token, (type, at, data) => {
      if (type !== 'turn_committed') return;
      lastCommitAt = at;
      if ((JSON.parse(data) as { sessionId?: string }).sessionId === waitingFor) committed?.(at);
    });
    /** An agent's conversation: each call sends the history so far and a new message, as agents do. */
    const conversation = (session: string) => {
      const history: unknown[] = [];
      let turn = 0;
      return {
        next(): { prompt: string; body: string } {
          const prompt = `${session} turn ${turn++} [[words:46]]`;
          return { prompt, body: streamedBody(prompt, history) };
        },
        answered(prompt: string, answer: Timing): void {
          history.push({ role: 'user', content: prompt }, { role: 'assistant', content: [{ type: 'text', text: textOf(answer.text) }] });
        },
      };
    };

    // First byte, sequential, direct and proxied alternated so both see the same machine. Each
    // proxied call waits for the previous one's turn commit, as an agent's next call comes after
    // its tools ran: the figure is the proxy's path, not a commit still running from the last call.
    const directTtfb: number[] = [];
    const proxyTtfb: number[] = [];
    const floorTtfb: number[] = [];
    const sequential = conversation('ttfb');
    for (let i = 0; i < SEQUENTIAL + WARMUP; i++) {
      const { prompt, body } = sequential.next();
      const straight = await timedPost(direct, agent, directHeaders, body);
      const minimal = await timedPost(floor.url, agent, directHeaders, body);
      waitingFor = 'bench-ttfb';
      const done = new Promise<number>((resolve) => (committed = resolve));
      const through = await timedPost(proxied, agent, proxyHeaders('bench-ttfb'), body);
      sequential.answered(prompt, through);
      await done;
      if (i >= WARMUP) {
        directTtfb.push(straight.ttfb);
        proxyTtfb.push(through.ttfb);
        floorTtfb.push(minimal.ttfb);
      }
    }
    // The client's bytes are the upstream's.
    const check = streamedBody('bytes [[words:46]]');
    const [straight, through] = [await timedPost(direct, agent, directHeaders, check), await timedPost(proxied, agent, proxyHeaders('bench-bytes'), check)];
    if (through.text !== straight.text) throw new Error('the proxy changed the bytes');

    // The whole exchange's added time, 20 agents at once, each in its own growing conversation:
    // every step sends the same body straight and through the proxy, back to back, and the
    // proxied exchange's whole duration minus its pair's is one sample (DESIGN §9). The order in
    // a pair flips each step, so neither side always runs right after the other's work. The
    // proxied call's recording overlaps what follows, as with a real agent (nobody waits for it).
    const pairs = async (perClient: number, warmup: number, via: { url: string; headers: (client: number) => Record<string, string> }) => {
      const added: number[] = [];
      const straightTotals: number[] = [];
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          const talk = conversation(`client-${client}`);
          const headers = via.headers(client);
          for (let i = 0; i < warmup + perClient; i++) {
            const { prompt, body } = talk.next();
            let straight: Timing;
            let through: Timing;
            if ((client + i) % 2 === 0) {
              straight = await timedPost(direct, agent, directHeaders, body);
              through = await timedPost(via.url, agent, headers, body);
            } else {
              through = await timedPost(via.url, agent, headers, body);
              straight = await timedPost(direct, agent, directHeaders, body);
            }
            talk.answered(prompt, through);
            if (i < warmup) continue;
            added.push(through.total - straight.total);
            straightTotals.push(straight.total);
          }
        }),
      );
      return { added, straightTotals };
    };
    await loopDelay(server, probeFile);
    const { added, straightTotals } = await pairs(PAIRS_PER_CLIENT, PAIR_WARMUP, { url: proxied, headers: (client) => proxyHeaders(`bench-concurrent-${client}`) });
    const loop = await loopDelay(server, probeFile);
    // The same load through the minimal pass-through: what any extra hop adds at 20 clients here.
    const floorPairs = await pairs(PAIRS_PER_CLIENT, PAIR_WARMUP, { url: floor.url, headers: () => directHeaders });

    // Last byte → committed turn, in a conversation that grows.
    // The recordings of the phase above finish first: a second without a commit.
    committed = null;
    while (performance.now() - lastCommitAt < 1_000) await new Promise((resolve) => setTimeout(resolve, 200));
    const record: number[] = [];
    const recorded = conversation('record');
    waitingFor = 'bench-record';
    for (let i = 0; i < RECORDS; i++) {
      const done = new Promise<number>((resolve) => (committed = resolve));
      const { prompt, body } = recorded.next();
      const answer = await timedPost(proxied, agent, proxyHeaders('bench-record'), body);
      recorded.answered(prompt, answer);
      const at = await done;
      if (i >= 5) record.push(at - answer.endedAt);
    }
    return {
      proxy_added_ttfb_p50_ms: round(p50(proxyTtfb) - p50(directTtfb)),
      proxy_added_p99_ms: round(p99(added)),
      proxy_record_p50_ms: round(p50(record)),
      proxy_direct_ttfb_p50_ms: round(p50(directTtfb)),
      proxy_added_p50_ms: round(p50(added)),
      proxy_pairs: added.length,
      proxy_direct_p99_ms: round(p99(straightTotals)),
      proxy_floor_ttfb_p50_ms: round(p50(floorTtfb) - p50(directTtfb)),
      proxy_floor_p50_ms: round(p50(floorPairs.added)),
      proxy_floor_p99_ms: round(p99(floorPairs.added)),
      proxy_loop_p99_ms: loop.p99,
      proxy_loop_max_ms: loop.max,
    };
  } finally {
    stream?.destroy();
    agent.destroy();
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    model.child.kill('SIGTERM');
    floor.child.kill('SIGTERM');
  }
}
