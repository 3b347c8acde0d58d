import type http from 'node:http';
import type { UpstreamKind } from '@/lib/auth/index';
import { exchangeDeadlineMs, maxOpenExchangesPerUser } from '@/lib/proxy/limits';
import { internalAllowed } from '@/lib/proxy/upstream-address';
import { getAuthStore, getInstanceKeys, getProxyUpstreams } from '@/server/runtime';
import { enterUserWrite } from '@/server/cluster/user-gate';
import { misdirectedAnswer } from '@/server/cluster/misdirected';
import { agentKeyOf, keyToSend, missingKeyMessage, proxyCaller } from './credentials';
import { forward } from './forward';
import { getExchangeSlots, getOpenExchanges } from './open-exchanges';
import { providerError } from './provider-errors';
import { warmBackgroundThread } from '@/server/background/background-thread';
import { recordInBackground } from './recorder';
import { connectAgentOf, noteRefusal } from './refusals';
import { matchProxyRoute } from './routes';

/** DESIGN §12: request bodies up to 32 MiB, OPENPROGRAM_PROXY_MAX_BODY_BYTES to change it. */
export function proxyBodyLimit(): number {
  const value = Number(process.env.OPENPROGRAM_PROXY_MAX_BODY_BYTES);
  return Number.isInteger(value) && value > 0 ? value : 32 * 1024 * 1024;
}

/** ms without a byte from the upstream before the exchange ends as timed out (default 10 min). */
function idleTimeoutMs(): number {
  const value = Number(process.env.OPENPROGRAM_PROXY_TIMEOUT_MS);
  return Number.isInteger(value) && value > 0 ? value : 600_000;
}

/** The request body, or null once it passes the limit (then the rest is not read). */
function readBody(req: http.IncomingMessage, limit: number): Promise<{ body: Buffer | null; bytes: number }> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      resolve({ body: null, bytes: declared });
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) {
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve({ body: bytes > limit ? null : Buffer.concat(chunks), bytes }));
    req.on('error', reject);
  });
}

/**
 * On a refusal that asking again cannot change (no token, no stored key): Claude Code retries a
 * plain 401 ten times over some three minutes before it shows it (issue 31); with this header,
 * which the Anthropic and OpenAI SDKs read before their own rules, it shows it at once.
 */
const NOT_RETRYABLE = { 'x-should-retry': 'false' };

/** The kind an error answers in before the upstream is known: by the path's endpoint. */
function kindByPath(url: string): UpstreamKind {
  return /\/v1\/messages(\/|\?|$)/.test(url) || url.startsWith('/proxy/anthropic/') ? 'anthropic' : 'openai';
}

/**
 * `/proxy/<upstream>/…` on node's http: who is calling, which upstream, then the exchange
 * streamed through (forward.ts) and recorded after its last byte (recorder.ts).
 */
export async function serveProxy(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const answer = (kind: UpstreamKind | null, status: number, message: string, extra: Record<string, string> = {}) => {
    const error = providerError(kind, status, message);
    res.writeHead(error.status, { 'content-type': 'application/json', ...extra }).end(error.body);
  };
  const caller = proxyCaller(req.headers, getAuthStore());
  if (!caller.ok) {
    req.resume();
    return answer(kindByPath(url), caller.status, caller.message, NOT_RETRYABLE);
  }
  const userId = caller.user.id;
  // The move gate, before a byte goes upstream: a user moved away is sent to the owner (nothing is
  // forwarded for them here), a frozen one is asked to retry; an admitted exchange holds the gate
  // until it is recorded, so a move's freeze waits for it and no recording lands after the final copy.
  const entry = enterUserWrite(userId);
  if (!entry.ok) {
    req.resume();
    if (entry.refusal.kind === 'moved') {
      const misdirected = misdirectedAnswer(entry.refusal.owner);
      res.writeHead(misdirected.status, misdirected.headers).end(JSON.stringify(misdirected.body));
      return;
    }
    return answer(kindByPath(url), 503, entry.refusal.message, { 'retry-after': String(entry.refusal.retryAfterSeconds) });
  }
  const leave = entry.leave;
  let handedOff = false;
  try {
    warmBackgroundThread();
    // Tracked until the response ends, so that disabling the user cuts the stream off.
    const untrack = getOpenExchanges(getAuthStore()).add(userId, res);
    res.on('close', untrack);
    const upstreams = getProxyUpstreams();
    const route = matchProxyRoute(req.method ?? 'GET', url, (name) => upstreams.resolve(userId, name)?.kind ?? null);
    if ('error' in route) {
      req.resume();
      if (route.error === 'no_upstream') return answer(kindByPath(url), 404, `No upstream named "${route.upstream}". The upstreams are in Settings → Connect an agent.`);
      if (route.error === 'method') return answer(route.kind, 405, `${req.method} is not allowed here`, { allow: req.method === 'GET' ? 'POST' : 'GET' });
      return answer(route.kind, 404, `The proxy does not serve ${url.split('?')[0]} for a ${route.kind} upstream.`);
    }
    const upstream = upstreams.resolve(userId, route.upstream)!;
    // The user's own stored key, else the admin's instance key when the admin lets this user use it.
    const sent = caller.mode === 'stored-key' ? keyToSend(userId, upstream, getInstanceKeys()) : null;
    if (caller.mode === 'stored-key' && !sent) {
      req.resume();
      const message = missingKeyMessage(upstream);
      noteRefusal(userId, connectAgentOf(req.headers, route.kind), { at: Date.now(), status: 401, message });
      return answer(route.kind, 401, message, NOT_RETRYABLE);
    }
    // At most so many open exchanges per user (issue 27 item 3): one user's held exchanges never starve the others'.
    const release = getExchangeSlots().open(userId);
    if (!release) {
      req.resume();
      const cap = maxOpenExchangesPerUser();
      return answer(route.kind, 429, `This user already has ${cap} proxied exchanges open, the most one user may hold at once (OPENPROGRAM_PROXY_MAX_OPEN_PER_USER); wait for one to end.`, { 'retry-after': '2' });
    }
    res.on('close', release);
    const limit = proxyBodyLimit();
    const { body, bytes } = route.method === 'POST' ? await readBody(req, limit) : { body: null, bytes: 0 };
    if (route.method === 'POST' && body === null) {
      answer(route.kind, 413, `The request body is ${bytes} bytes, over the proxy's limit of ${limit} bytes.`, { connection: 'close' });
      if (!route.wire) return;
      handedOff = true;
      void recordInBackground({ userId, wire: route.wire, upstream: upstream.name, headers: req.headers, body: null, bodyBytes: bytes, status: 413, contentType: null, bytes: Buffer.alloc(0), outcome: 'too_large', endedAt: performance.now() }).finally(leave);
      return;
    }
    const replace: Record<string, string> = {};
    const remove: string[] = [];
    if (caller.mode === 'stored-key') {
      // Our token never goes upstream: the stored key takes the place where the agent put its key.
      remove.push('authorization', 'x-api-key');
      if (upstream.kind === 'anthropic') replace['x-api-key'] = sent!.key;
      else replace['authorization'] = `Bearer ${sent!.key}`;
    } else if (agentKeyOf(req.headers) === null) {
      remove.push('authorization', 'x-api-key');
    }
    const target = new URL(`${upstream.baseUrl}${route.upstreamPath}`);
    forward(
      { url: target, method: route.method, headers: req.headers, replace, remove, body, idleTimeoutMs: idleTimeoutMs(), deadlineMs: exchangeDeadlineMs(), publicOnly: !internalAllowed(upstream.baseUrl) },
      res,
      (status, message) => providerError(route.kind, status, message),
      (result) => {
        if (!route.wire) return leave();
        void recordInBackground({ userId, wire: route.wire, upstream: upstream.name, headers: req.headers, body, bodySent: result.requestSent, bodyBytes: bytes, status: result.status, contentType: result.contentType, bytes: result.bytes, totalBytes: result.totalBytes, outcome: result.outcome, endedAt: result.endedAt, startedAt: result.startedAt, firstByteAt: result.firstByteAt }).finally(leave);
      },
    );
    // From here onDone leaves the gate (forward calls it exactly once).
    handedOff = true;
  } finally {
    // Answered here without forwarding (or forward threw): nothing will be recorded.
    if (!handedOff) leave();
  }
}
