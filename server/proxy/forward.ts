import http from 'node:http';
import https from 'node:https';
import { MAX_RECORDED_ANSWER_BYTES } from '@/lib/proxy/limits';
import type { ExchangeOutcome } from '@/lib/proxy/types';
import { hostOf, isInternalAddress, publicOnlyLookup } from '@/lib/proxy/upstream-address';
import { isIP } from 'node:net';

/** Headers that belong to one hop, never forwarded (RFC 9110 §7.6.1), plus what we set ourselves. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
/** Never upstream: our token, our session header, our cookies, our proxy's forwarding headers. */
const OURS = new Set(['x-entity-memory-token', 'x-entity-memory-session', 'x-entity-memory-project', 'cookie', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded', 'accept-encoding']);

/** Never set on our origin from an upstream's answer (issue 27 hardening): its cookies would be ours. */
const DROPPED_RESPONSE = new Set(['set-cookie', 'set-cookie2']);
/** An upstream's answer is data, never a page of our origin: no script, no sniffing it into HTML. */
const ANSWER_SECURITY_HEADERS = { 'content-security-policy': "default-src 'none'", 'x-content-type-options': 'nosniff' } as const;

/**
 * Kept-alive connections, with no cap on sockets per host (issue 27 item 3): a shared cap of 256
 * let one user's 256 held exchanges queue everyone else's behind them. What one user can hold is
 * bounded per user instead (OPENPROGRAM_PROXY_MAX_OPEN_PER_USER, handler.ts), so no user can
 * fill a pool that others need.
 */
const agents = { http: new http.Agent({ keepAlive: true, maxSockets: Infinity }), https: new https.Agent({ keepAlive: true, maxSockets: Infinity }) };
/** For users' own upstreams: every new connection's address is checked (kept-alive ones were checked when made). */
const publicAgents = { http: new http.Agent({ keepAlive: true, maxSockets: Infinity, lookup: publicOnlyLookup }), https: new https.Agent({ keepAlive: true, maxSockets: Infinity, lookup: publicOnlyLookup }) };

export interface ForwardInput {
  url: URL;
  method: string;
  /** the client's headers (lower-case), before ours are taken out */
  headers: http.IncomingHttpHeaders;
  /** headers to set instead (the stored provider key) */
  replace: Record<string, string>;
  /** headers to take out (the agent's key, when a stored one replaces it) */
  remove: string[];
  body: Buffer | null;
  /** ms without a byte from the upstream before the exchange ends as timed out */
  idleTimeoutMs: number;
  /** ms from the start after which the exchange is ended whatever comes (outcome `deadline`) */
  deadlineMs: number;
  /** the most of the answer kept aside for recording (default MAX_RECORDED_ANSWER_BYTES) */
  copyLimitBytes?: number;
  /** refuse internal addresses at connect time (a user's upstream, not the admin's) */
  publicOnly: boolean;
}

export interface ForwardResult {
  status: number;
  contentType: string | null;
  /** the bytes the client was sent, in order (also what the upstream sent), up to the copy limit */
  bytes: Buffer;
  /** every byte the client was sent: more than `bytes` holds when the copy stopped at its limit */
  totalBytes: number;
  outcome: ExchangeOutcome;
  /** performance.now() at the upstream's last byte (or the end of the exchange): where the recording time starts */
  endedAt: number;
  /** performance.now() when the request went upstream, and at the answer's first byte (null: none came) */
  startedAt: number;
  firstByteAt: number | null;
  /** the request body was handed to the socket in full ('finish'): the body's memory is no longer read here */
  requestSent: boolean;
}

/** The response headers the client gets: the upstream's, less one hop's. */
function responseHeaders(upstream: http.IncomingMessage): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && name !== 'content-length') || DROPPED_RESPONSE.has(name)) continue;
    out[name] = value;
  }
  return { ...out, ...ANSWER_SECURITY_HEADERS };
}

/**
 * Forward one request and stream the answer to the client as it comes: each upstream chunk is
 * written to the client at once (back-pressure respected) and kept aside up to the copy limit
 * (the rest is only counted). The client's bytes are the upstream's bytes. `onDone` runs once,
 * after the last byte, the client's departure, a timeout, the deadline or a failure to connect
 * (then the client gets `failure` if nothing was sent yet).
 */
export function forward(input: ForwardInput, res: http.ServerResponse, failure: (status: number, message: string) => { status: number; body: string }, onDone: (result: ForwardResult) => void): void {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(input.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || OURS.has(name) || input.remove.includes(name)) continue;
    headers[name] = value;
  }
  Object.assign(headers, input.replace);
  // Plain bytes upstream, so the copy can be read without decoding; the client gets them as they are.
  headers['accept-encoding'] = 'identity';
  if (input.body) headers['content-length'] = String(input.body.length);

  const copyLimit = input.copyLimitBytes ?? MAX_RECORDED_ANSWER_BYTES;
  const chunks: Buffer[] = [];
  let copied = 0;
  let totalBytes = 0;
  let settled = false;
  let status = 0;
  let contentType: string | null = null;
  let deadline: NodeJS.Timeout | null = null;
  const startedAt = performance.now();
  let firstByteAt: number | null = null;
  let requestSent = false;
  const finish = (outcome: ExchangeOutcome) => {
    if (settled) return;
    settled = true;
    if (deadline) clearTimeout(deadline);
    onDone({ status, contentType, bytes: Buffer.concat(chunks, copied), totalBytes, outcome, endedAt: performance.now(), startedAt, firstByteAt, requestSent });
    chunks.length = 0;
  };
  const fail = (httpStatus: number, message: string, outcome: ExchangeOutcome) => {
    if (settled) return;
    if (!res.headersSent) {
      const error = failure(httpStatus, message);
      status = error.status;
      res.writeHead(error.status, { 'content-type': 'application/json' }).end(error.body);
    } else res.destroy();
    finish(outcome);
  };

  const host = hostOf(input.url);
  if (input.publicOnly && isIP(host) && isInternalAddress(host)) {
    fail(502, `the upstream ${input.url.origin} is an internal address; an admin can allow it with OPENPROGRAM_PROXY_ALLOW_PRIVATE=1`, 'upstream_unreachable');
    return;
  }
  const transport = input.url.protocol === 'https:' ? https : http;
  const agent = input.publicOnly ? publicAgents : agents;
  const upstreamRequest = transport.request(input.url, { method: input.method, headers, agent: input.url.protocol === 'https:' ? agent.https : agent.http }, (upstream) => {
    status = upstream.statusCode ?? 502;
    contentType = typeof upstream.headers['content-type'] === 'string' ? upstream.headers['content-type'] : null;
    res.writeHead(status, responseHeaders(upstream));
    // The status and headers go out now: an SDK waiting for them is not held by the first chunk.
    res.flushHeaders();
    upstream.on('data', (chunk: Buffer) => {
      firstByteAt ??= performance.now();
      totalBytes += chunk.length;
      if (copied < copyLimit) {
        // A slice past the limit is copied, so the whole chunk is not kept alive by it.
        const kept = copied + chunk.length <= copyLimit ? chunk : Buffer.from(chunk.subarray(0, copyLimit - copied));
        chunks.push(kept);
        copied += kept.length;
      }
      if (!res.write(chunk)) {
        upstream.pause();
        res.once('drain', () => upstream.resume());
      }
    });
    upstream.on('end', () => {
      res.end();
      finish(status >= 200 && status < 300 ? 'complete' : 'upstream_error');
    });
    upstream.on('aborted', () => fail(502, 'the upstream broke the answer off', 'timeout'));
    upstream.on('error', () => fail(502, 'the upstream broke the answer off', 'timeout'));
  });
  upstreamRequest.on('finish', () => (requestSent = true));
  upstreamRequest.setNoDelay(true);
  upstreamRequest.setTimeout(input.idleTimeoutMs, () => {
    upstreamRequest.destroy(new Error('timeout'));
    fail(504, `the upstream sent nothing for ${Math.round(input.idleTimeoutMs / 1000)} s`, 'timeout');
  });
  // The whole exchange has a deadline too: a trickle of bytes never holds it open for ever.
  deadline = setTimeout(() => {
    upstreamRequest.destroy();
    fail(504, `the exchange passed the proxy's deadline of ${Math.round(input.deadlineMs / 1000)} s and was ended`, 'deadline');
  }, input.deadlineMs);
  deadline.unref();
  upstreamRequest.on('error', (error: NodeJS.ErrnoException) => {
    if (settled) return;
    if (error.code === 'EINTERNALADDRESS') fail(502, `the upstream ${input.url.origin} is refused: ${error.message}; an admin can allow it with OPENPROGRAM_PROXY_ALLOW_PRIVATE=1`, 'upstream_unreachable');
    else if (status === 0) fail(502, `the upstream ${input.url.origin} could not be reached (${error.code ?? error.message})`, 'upstream_unreachable');
    else fail(502, 'the upstream broke the answer off', 'timeout');
  });
  res.on('close', () => {
    if (settled || res.writableFinished) return;
    // The client went away: stop the upstream too (no tokens spent for nobody) and keep what came.
    upstreamRequest.destroy();
    finish('client_gone');
  });
  upstreamRequest.end(input.body ?? undefined);
}
