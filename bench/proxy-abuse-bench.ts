/**
 * Issue 27's memory figure for the recording proxy (items 2 and 3), the built server on loopback
 * and a fresh data directory, a loopback upstream in a process of its own:
 * - `rss_mb_after_proxy_abuse`: the server's RSS (with its children) after one user has read a
 *   250 MB upstream answer whole through the proxy (recorded) and then opened 256 exchanges the
 *   upstream never answers, measured while they are still open (≤ 600);
 * - `rss_mb_proxy_abuse_peak`: the most seen while that went on; `rss_mb_before_proxy_abuse`: at rest
 *   before; `rss_mb_after_proxy_big_answer`: once the big answer is recorded, before the held exchanges.
 * BENCH_PROXY_ABUSE_SCALE (default 1) scales the answer's size (0.2 for a quick run). A setup that
 * fails (the upstream not reached, the answer not whole, a held exchange refused other than by
 * the per-user cap's 429) throws: no figure for an attack that did not happen. Needs `npm run build`.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { AuthStore } from '../lib/auth/index.js';
import { benchRequest } from './http-client.js';
import { startLoopbackUpstream } from './loopback-upstream.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer, treeRssMb } from './server-bench.js';
import { requireBuild } from './figures.js';

const SCALE = Number(process.env['BENCH_PROXY_ABUSE_SCALE'] ?? 1);
const MB = 1024 * 1024;
const HELD = 256;

/** A POST through the proxy, read whole and dropped: status and byte count. */
function proxied(headers: Record<string, string>, body: string): Promise<{ status: number; bytes: number; head: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${BASE}/proxy/anthropic/v1/messages`, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let bytes = 0;
      let head = '';
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (head.length < 2000) head += chunk.toString('utf8', 0, Math.min(chunk.length, 2000));
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, head }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchProxyAbuse(): Promise<Record<string, number>> {
  requireBuild('the proxy abuse figures');
  const dataDir = scratchDir('em-bench-proxy-abuse-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const user = await auth.users.create({ email: 'abuser@bench.test', password: 'bench password long' });
  mkdirSync(join(dataDir, 'workspaces', user.id), { recursive: true });
  const token = (await auth.tokens.create(user.id, { name: 'bench' })).token;
  auth.flushSync();
  const agent = new http.Agent({ keepAlive: true });
  const headers = (session: string) => ({ 'content-type': 'application/json', 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01', 'x-entity-memory-token': token, 'x-entity-memory-session': session });
  const ask = (model: string) => JSON.stringify({ model, max_tokens: 10, stream: model !== 'small', messages: [{ role: 'user', content: `ask ${model}` }] });
  const turnsOf = async (id: string): Promise<number> => {
    const answer = await benchRequest(BASE, agent, 'GET', `/api/trpc/session.get?input=${encodeURIComponent(JSON.stringify({ id }))}`, token);
    return answer.status === 200 ? ((JSON.parse(answer.body) as { result: { data: { turnCount?: number } } }).result.data.turnCount ?? 0) : 0;
  };

  const bigBytes = Math.round(250 * MB * SCALE);
  let upstream: ChildProcess | null = null;
  let server: ChildProcess | null = null;
  const held: http.ClientRequest[] = [];
  let peak = 0;
  let sampler: NodeJS.Timeout | null = null;
  try {
    const started = await startLoopbackUpstream(bigBytes);
    upstream = started.child;
    server = await startServer(dataDir, { OPENPROGRAM_PROXY_ANTHROPIC_URL: `http://127.0.0.1:${started.port}` });
    const pid = server.pid!;
    const probe = await proxied(headers('abuse-probe'), ask('small'));
    if (probe.status !== 200 || !probe.head.includes('"ok"')) throw new Error(`the proxy did not reach the bench upstream: ${probe.status} ${probe.head.slice(0, 200)}`);
    while ((await turnsOf('abuse-probe')) < 1) await sleep(100);
    await sleep(2_000);
    const before = treeRssMb(pid);
    sampler = setInterval(() => (peak = Math.max(peak, treeRssMb(pid))), 100);

    // Item 2: a big answer, read whole by the client, then recorded.
    const big = await proxied(headers('abuse-big'), ask('big'));
    if (big.status !== 200 || big.bytes < bigBytes) throw new Error(`big answer: ${big.status}, ${big.bytes} of ${bigBytes} bytes`);
    for (let waited = 0; (await turnsOf('abuse-big')) < 1; waited += 100) {
      if (waited > 120_000) throw new Error('the big answer was not recorded within 120 s');
      await sleep(100);
    }
    await sleep(2_000);
    const afterBig = treeRssMb(pid);

    // Item 3: exchanges held open by the same user (the upstream never answers them).
    let heads = 0;
    let refused = 0;
    await new Promise<void>((resolve, reject) => {
      for (let n = 0; n < HELD; n++) {
        const body = ask('hold');
        const req = http.request(`${BASE}/proxy/anthropic/v1/messages`, { method: 'POST', agent: false, headers: { ...headers(`abuse-held-${n}`), 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
          res.resume();
          // Past the per-user cap a 429: the attack met, not a setup failure.
          if (res.statusCode === 429) refused++;
          else if (res.statusCode !== 200) reject(new Error(`held exchange ${n}: ${res.statusCode}`));
          if (++heads === HELD) resolve();
        });
        req.on('error', (error) => (held.includes(req) ? reject(error) : undefined));
        req.end(body);
        held.push(req);
      }
      setTimeout(() => reject(new Error(`only ${heads} of ${HELD} held exchanges got an answer head in 60 s`)), 60_000).unref();
    });
    await sleep(2_000);
    const after = treeRssMb(pid);
    process.stderr.write(`bench: proxy abuse: ${Math.round(bigBytes / MB)} MB answer, ${HELD - refused} of ${HELD} exchanges held (${refused} refused with 429); RSS ${Math.round(before)} → ${Math.round(afterBig)} (answer recorded) → ${Math.round(after)} MB\n`);
    return { rss_mb_before_proxy_abuse: Math.round(before), rss_mb_after_proxy_big_answer: Math.round(afterBig), rss_mb_after_proxy_abuse: Math.round(after), rss_mb_proxy_abuse_peak: Math.round(Math.max(peak, after)) };
  } finally {
    if (sampler) clearInterval(sampler);
    for (const req of held) req.destroy();
    agent.destroy();
    for (const child of [server, upstream]) {
      if (child && child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
  }
}
