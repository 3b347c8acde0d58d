/**
 * Issue 27's fairness figures: another user's `session.list` p99 (tRPC over HTTP, a Bearer
 * token) while one user runs each of the issue's items 1–6 against the built server on a fresh
 * data directory, beside the same run's quiet baseline:
 * - `other_user_session_list_p99_ms_quiet`: nobody else doing anything;
 * - `..._during_redact`: proxied requests of 1 MB of `BEGIN … PRIVATE KEY` headers, no END (item 1);
 * - `..._during_proxy_big_answer`: a loopback upstream streams 250 MB back through the proxy (item 2);
 * - `..._during_held_exchanges`: 256 proxied exchanges held open by one user (item 3);
 * - `..._during_share_render`: two share links to one slow session, rendered again and again (item 4);
 * - `..._during_zip_bomb`: a state-directory zip of ~1 MB that unpacks to 1 GB, uploaded (item 5);
 * - `..._during_long_line`: a 40 MB single-line import (item 6).
 * The upstream runs in a process of its own (so its writes do not delay the measuring client).
 * BENCH_FAIRNESS_SCALE (default 1) scales the sizes (0.05 for a quick run of the harness);
 * BENCH_FAIRNESS_ONLY=redact,share_render (names as in the figures) measures the quiet baseline and
 * those attacks only (a before/after of one fix).
 * An attack whose setup fails (the upstream not reached, a link not made, a refusal that is not
 * the cap it should be) throws: no figure is reported for an attack that did not happen.
 * Needs `npm run build` first.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Zip, ZipDeflate } from 'fflate';
import { AuthStore } from '../lib/auth/index.js';
import { FileShareIndex, ShareLinkStore } from '../lib/share/index.js';
import { SessionStore } from '../lib/store/index.js';
import { hostileMessages } from '../e2e/fixtures/hostile-messages.js';
import { benchRequest } from './http-client.js';
import { startLoopbackUpstream } from './loopback-upstream.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer } from './server-bench.js';
import { p99 } from './store-bench.js';
import { requireBuild } from './figures.js';

const SCALE = Number(process.env['BENCH_FAIRNESS_SCALE'] ?? 1);
const ONLY = process.env['BENCH_FAIRNESS_ONLY']?.split(',').map((name) => name.trim());
/** The attack runs in this run (all of them unless BENCH_FAIRNESS_ONLY names some). */
const runs = (attack: string): boolean => !ONLY || ONLY.includes(attack);
const MB = 1024 * 1024;
/** each attack goes on (repeated) at least this long, and the lister takes at least MIN_SAMPLES */
const MIN_MS = 3_000;
const MIN_SAMPLES = 30;
const HELD = Math.max(16, Math.round(256 * Math.min(1, SCALE * 4)));
const SLOW_PAGES = 2;

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/** One request, its status and (up to `keep` characters of) its text; the rest is read and dropped. */
function request(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: Buffer | string, keep = 4000, retry = true): Promise<{ status: number; text: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(`${BASE}${path}`, { method, agent: retry ? agent : false, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      answered = true;
      let text = '';
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (text.length < keep) text += chunk.toString('utf8', 0, Math.min(chunk.length, keep));
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, bytes }));
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A server that refuses a large body answers before reading it all and closes: our write
      // fails while its answer is on the way. That answer is the result, not the write's error.
      if (answered) return;
      // A kept-alive socket the server closed while idle (its keep-alive timeout; the zip bomb
      // takes seconds to make) fails the first write: once more on a new connection.
      if ((error.code === 'EPIPE' || error.code === 'ECONNRESET') && retry) request(method, path, headers, body, keep, false).then(resolve, reject);
      else reject(error);
    });
    req.end(body);
  });
}

/** A zip of one state-directory entry of `bytes` zeros (deflated to about a thousandth). */
async function zipBomb(bytes: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  await new Promise<void>((resolve, reject) => {
    const zip = new Zip((error, chunk, final) => {
      if (error) return reject(error);
      parts.push(chunk);
      if (final) resolve();
    });
    const entry = new ZipDeflate('state/sessions/bomb/messages.jsonl', { level: 9 });
    zip.add(entry);
    const zeros = new Uint8Array(MB);
    for (let left = bytes; left > 0; left -= MB) entry.push(zeros.subarray(0, Math.min(MB, left)), left <= MB);
    zip.end();
  });
  return Buffer.concat(parts);
}

export async function benchFairness(): Promise<Record<string, number>> {
  requireBuild('the fairness figures');
  const dataDir = scratchDir('em-bench-fairness-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const users = [];
  for (const name of ['abuser', 'other']) {
    const user = await auth.users.create({ email: `${name}@bench.test`, password: 'bench password long', admin: name === 'other' });
    mkdirSync(join(dataDir, 'workspaces', user.id), { recursive: true });
    users.push({ id: user.id, token: (await auth.tokens.create(user.id, { name: 'bench' })).token });
  }
  auth.flushSync();
  const [abuser, other] = users as [(typeof users)[0], (typeof users)[0]];
  // The slow session the share links show (the render-abuse bench's hostile messages), and the other user's sidebar.
  const slow = await SessionStore.open({ stateDir: join(dataDir, 'users', abuser.id), workspaceRoot: join(dataDir, 'workspaces', abuser.id) });
  await slow.createSession({ id: 'slow', title: 'Slow' });
  for (let page = 0; page < SLOW_PAGES; page++) for (const content of Object.values(hostileMessages(`page ${page}`))) await slow.appendMessage('slow', { role: 'user', content });
  await slow.finalizeTurn('slow');
  await slow.close();
  // Two live links to it, made before the server starts (links are made from a signed-in page, not with a token).
  const shareLinks = new ShareLinkStore(dataDir, new FileShareIndex(join(dataDir, 'auth')));
  const links: string[] = [];
  for (let n = 0; n < 2; n++) links.push((await shareLinks.create(abuser.id, { sessionId: 'slow', scope: 'live', pin: null, expires: '1d', toolCalls: true })).id);
  const sidebar = await SessionStore.open({ stateDir: join(dataDir, 'users', other.id), workspaceRoot: join(dataDir, 'workspaces', other.id) });
  for (let n = 0; n < 20; n++) await sidebar.createSession({ id: `other-${n}`, title: `Other ${n}` });
  await sidebar.close();

  const trpc = async (token: string, procedure: string, input: unknown, kind: 'query' | 'mutation'): Promise<unknown> => {
    const answer =
      kind === 'query'
        ? await benchRequest(BASE, agent, 'GET', `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, token)
        : await benchRequest(BASE, agent, 'POST', `/api/trpc/${procedure}`, token, input);
    if (answer.status !== 200) throw new Error(`${procedure}: ${answer.status} ${answer.body.slice(0, 200)}`);
    return (JSON.parse(answer.body) as { result: { data: unknown } }).result.data;
  };
  const list = async (): Promise<number> => {
    const start = performance.now();
    await trpc(other.token, 'session.list', { limit: 50 }, 'query');
    return performance.now() - start;
  };
  /** The other user's list, while `attack` runs (again and again until MIN_MS and MIN_SAMPLES). */
  const during = async (attack: () => Promise<void>): Promise<number> => {
    const latencies: number[] = [];
    const start = performance.now();
    let running = true;
    const attacker = (async () => {
      do await attack();
      while (performance.now() - start < MIN_MS || latencies.length < MIN_SAMPLES);
    })().finally(() => (running = false));
    // Let the attack reach the server first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    while (running) latencies.push(await list());
    await attacker;
    return p99(latencies);
  };

  const proxyHeaders = (session: string) => ({ 'content-type': 'application/json', 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01', 'x-entity-memory-token': abuser.token, 'x-entity-memory-session': session });
  let exchange = 0;
  const proxied = async (model: string, content: string): Promise<{ status: number; text: string; bytes: number }> =>
    request('POST', '/proxy/anthropic/v1/messages', proxyHeaders(`fair-${++exchange}`), JSON.stringify({ model, max_tokens: 10, stream: model === 'big', messages: [{ role: 'user', content }] }));

  const bigBytes = Math.round(250 * MB * SCALE);
  let upstream: ChildProcess | null = null;
  let server: ChildProcess | null = null;
  const figures: Record<string, number> = {};
  const held: http.ClientRequest[] = [];
  try {
    const started = await startLoopbackUpstream(bigBytes);
    upstream = started.child;
    server = await startServer(dataDir, { OPENPROGRAM_PROXY_ANTHROPIC_URL: `http://127.0.0.1:${started.port}`, OPENPROGRAM_SHARING: 'public' });
    // A crash of this process (an unhandled rejection) skips the finally below: never leave the ports taken.
    const children = [upstream, server];
    process.once('exit', () => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));
    for (let n = 0; n < 20; n++) await list();
    // The proxy reaches the upstream (else every proxy figure below would time a refusal).
    const probe = await proxied('small', 'hello');
    if (probe.status !== 200 || !probe.text.includes('"ok"')) throw new Error(`the proxy did not reach the bench upstream: ${probe.status} ${probe.text.slice(0, 200)}`);

    const quiet: number[] = [];
    for (let n = 0; n < 200; n++) quiet.push(await list());
    figures['other_user_session_list_p99_ms_quiet'] = p99(quiet);

    // 1. Redaction: 1 MB of private-key headers without an END.
    const pem = '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(Math.ceil((MB * SCALE) / 32));
    if (runs('redact'))
      figures['other_user_session_list_p99_ms_during_redact'] = await during(async () => {
        const answer = await proxied('small', pem);
        if (answer.status !== 200) throw new Error(`redact attack: the proxy answered ${answer.status} ${answer.text.slice(0, 200)}`);
      });

    // 2. A big answer streamed through the proxy, read whole by the client.
    if (runs('proxy_big_answer')) {
      figures['other_user_session_list_p99_ms_during_proxy_big_answer'] = await during(async () => {
        const answer = await proxied('big', 'stream me a lot');
        if (answer.status !== 200 || answer.bytes < bigBytes) throw new Error(`big answer attack: ${answer.status}, ${answer.bytes} of ${bigBytes} bytes`);
      });
    }

    // 3. Exchanges held open by one user (the upstream never answers them).
    if (runs('held_exchanges')) {
      let opened = 0;
      await new Promise<void>((resolve, reject) => {
        for (let n = 0; n < HELD; n++) {
          const body = JSON.stringify({ model: 'hold', max_tokens: 10, stream: true, messages: [{ role: 'user', content: `hold ${n}` }] });
          const req = http.request(`${BASE}/proxy/anthropic/v1/messages`, { method: 'POST', agent: false, headers: { ...proxyHeaders(`held-${n}`), 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
            res.resume();
            // A fixed server refuses past a per-user cap (429): that is the attack met, not a setup failure.
            if (res.statusCode !== 200 && res.statusCode !== 429) reject(new Error(`held exchange ${n}: ${res.statusCode}`));
            if (++opened === HELD) resolve();
          });
          req.on('error', (error) => (held.includes(req) ? reject(error) : undefined));
          req.end(body);
          held.push(req);
        }
        setTimeout(() => reject(new Error(`only ${opened} of ${HELD} held exchanges got an answer head in 60 s`)), 60_000).unref();
      });
      figures['other_user_session_list_p99_ms_during_held_exchanges'] = await during(() => new Promise((resolve) => setTimeout(resolve, 500)));
      for (const req of held.splice(0)) req.destroy();
    }

    // 4. Two share links to the slow session, each rendered again and again.
    if (runs('share_render')) {
      const warm = await request('GET', `/s/${links[0]}`, { accept: 'text/html' });
      if (warm.status !== 200) throw new Error(`share link: ${warm.status} ${warm.text.slice(0, 200)}`);
      figures['other_user_session_list_p99_ms_during_share_render'] = await during(async () => {
        const answers = await Promise.all(links.flatMap((id) => [0, 1].map(() => request('GET', `/s/${id}`, { accept: 'text/html' }))));
        for (const answer of answers) if (answer.status !== 200) throw new Error(`share render attack: ${answer.status}`);
      });
    }

    // 5. A zip bomb in a state-directory upload.
    if (runs('zip_bomb')) {
      const bomb = await zipBomb(Math.round(1024 * MB * SCALE));
      process.stderr.write(`bench: fairness: zip bomb of ${Math.round(bomb.length / 1024)} KB\n`);
      figures['other_user_session_list_p99_ms_during_zip_bomb'] = await during(async () => {
        const answer = await request('POST', '/api/import?name=state.zip', { authorization: `Bearer ${abuser.token}`, 'content-type': 'application/zip' }, bomb);
        if (answer.status !== 200 && !(answer.status >= 400 && answer.status < 500 && /cap|large|bytes|ratio|limit|unpack/i.test(answer.text))) throw new Error(`zip bomb attack: ${answer.status} ${answer.text.slice(0, 200)}`);
      });
    }

    // 6. One very long line in a Claude Code import.
    if (runs('long_line')) {
      const line = Buffer.from(`${JSON.stringify({ type: 'user', sessionId: 'long-line', message: { role: 'user', content: 'y'.repeat(Math.round(40 * MB * SCALE)) } })}\n`);
      figures['other_user_session_list_p99_ms_during_long_line'] = await during(async () => {
        const answer = await request('POST', '/api/import?name=long.jsonl', { authorization: `Bearer ${abuser.token}`, 'content-type': 'application/octet-stream' }, line);
        if (answer.status !== 200 && !(answer.status >= 400 && answer.status < 500 && /line|large|bytes|limit/i.test(answer.text))) throw new Error(`long line attack: ${answer.status} ${answer.text.slice(0, 200)}`);
      });
    }
    return figures;
  } finally {
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
