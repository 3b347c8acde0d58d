/**
 * The recording proxy's figures (DESIGN §9), against the built server and the loopback model:
 * - proxy_added_ttfb_p50_ms: first body byte through /proxy/anthropic/v1/messages minus first
 *   body byte straight from the model, the same streamed request (~50 chunks), alternated;
 * - proxy_added_p99_ms: p99 of the whole exchange with 20 concurrent clients, through the proxy
 *   minus straight;
 * - proxy_record_p50_ms: the last byte of the answer until the exchange is a committed turn
 *   (turn_committed on the user's event stream), in a conversation that grows call by call.
 * Needs `npm run build` first.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuthStore } from '../lib/auth/index.js';
import { startModelServer } from '../lib/llm/testing/model-server.js';
import { openEventStream } from './http-client.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer } from './server-bench.js';
import { p50, p99, round } from './store-bench.js';

const SEQUENTIAL = 200;
const WARMUP = 20;
const CLIENTS = 20;
const PER_CLIENT = 15;
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

export async function benchProxy(): Promise<Record<string, number>> {
  if (!existsSync(join(process.cwd(), '.next', 'BUILD_ID'))) {
    process.stderr.write('bench: proxy figures need `npm run build`; skipped\n');
    return {};
  }
  const model = await startModelServer();
  const dataDir = scratchDir('em-bench-proxy-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const user = await auth.users.create({ email: 'proxy@bench.test', password: 'bench password long', admin: true });
  const token = auth.tokens.create(user.id, { name: 'bench' }).token;
  auth.flushSync();
  let server: ChildProcess | null = null;
  let stream: http.ClientRequest | null = null;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  try {
    server = await startServer(dataDir, { OPENPROGRAM_PROXY_ANTHROPIC_URL: model.root, OPENPROGRAM_PROXY_OPENAI_URL: model.url });
    const direct = `${model.root}/v1/messages`;
    const proxied = `${BASE}/proxy/anthropic/v1/messages`;
    const directHeaders = { 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01' };
    // Pass-through: the agent's own key, our token beside it; one session per phase, retries in it.
    const proxyHeaders = (session: string) => ({ ...directHeaders, 'x-entity-memory-token': token, 'x-entity-memory-session': session });
    const body = streamedBody('bench [[words:46]]');

    // First byte, sequential, direct and proxied alternated so both see the same machine.
    const directTtfb: number[] = [];
    const proxyTtfb: number[] = [];
    for (let i = 0; i < SEQUENTIAL + WARMUP; i++) {
      const straight = await timedPost(direct, agent, directHeaders, body);
      const through = await timedPost(proxied, agent, proxyHeaders('bench-ttfb'), body);
      if (through.text !== straight.text) throw new Error('the proxy changed the bytes');
      if (i >= WARMUP) {
        directTtfb.push(straight.ttfb);
        proxyTtfb.push(through.ttfb);
      }
    }

    // The whole exchange, 20 clients at once.
    const concurrent = async (url: string, headers: Record<string, string>) => {
      const totals: number[] = [];
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let i = 0; i < PER_CLIENT; i++) totals.push((await timedPost(url, agent, headers, body)).total);
        }),
      );
      return totals;
    };
    await concurrent(direct, directHeaders);
    const directTotals = await concurrent(direct, directHeaders);
    await concurrent(proxied, proxyHeaders('bench-concurrent'));
    const proxyTotals = await concurrent(proxied, proxyHeaders('bench-concurrent'));

    // Last byte → committed turn, in a conversation that grows.
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the background recordings of the phases above
    let committed: ((at: number) => void) | null = null;
    stream = await openEventStream(BASE, token, (type, at) => {
      if (type === 'turn_committed') committed?.(at);
    });
    const record: number[] = [];
    const history: unknown[] = [];
    for (let i = 0; i < RECORDS; i++) {
      const prompt = `turn ${i} of the recording bench [[words:20]]`;
      const done = new Promise<number>((resolve) => (committed = resolve));
      const answer = await timedPost(proxied, agent, proxyHeaders('bench-record'), streamedBody(prompt, history));
      const at = await done;
      if (i >= 5) record.push(at - answer.endedAt);
      history.push({ role: 'user', content: prompt }, { role: 'assistant', content: [{ type: 'text', text: textOf(answer.text) }] });
    }
    return {
      proxy_added_ttfb_p50_ms: round(p50(proxyTtfb) - p50(directTtfb)),
      proxy_added_p99_ms: round(p99(proxyTotals) - p99(directTotals)),
      proxy_record_p50_ms: round(p50(record)),
    };
  } finally {
    stream?.destroy();
    agent.destroy();
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    await model.close();
  }
}
