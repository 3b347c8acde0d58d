/**
 * The production server (`npm start`): one HTTP server in front of Next. The tRPC API and the
 * event stream are served straight from node's http (tRPC's standalone adapter) — Next's routing
 * costs ~1.5 ms of CPU a request, which at 20 concurrent clients is most of the latency budget
 * (DESIGN §9), and so are the export downloads. Everything else (pages, sign-in, attachments) goes to Next. app/api/trpc and
 * app/api/events stay as the same API under `next dev` / `next start`.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import next from 'next';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { appRouter } from '@/server/api/root';
import { createTRPCContext, trpcResponseMeta } from '@/server/api/trpc';
import { importUpload } from '@/server/http/import-upload';
import { settleForwardedHeaders } from '@/server/auth/proxy';
import { answerRateLimitedSignIns } from '@/server/auth/sign-in-status';
import { startServer } from '@/server/startup';
import { getClusterNode } from '@/server/runtime';
import { admitClusterRequest, setRouteCookieOnSignIn } from '@/server/cluster/ownership-gate';
import { MAX_BODY_BYTES } from './body-limit';
import { serveMcpNode } from '@/server/mcp/http';
import { serveEvents } from './node-events';
import { serveProxy } from '@/server/proxy/handler';
import { PROXY_PREFIX } from '@/server/proxy/routes';
import { serveExport } from './export';
import { NON_PAGE_CSP, STATIC_SECURITY_HEADERS } from './security-headers';
import { answerControl, CONTROL_PREFIX } from '@/server/cluster/control-server';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { port: { type: 'string', short: 'p' }, hostname: { type: 'string', short: 'H' } },
  strict: true,
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
const hostname = values.hostname ?? process.env.HOSTNAME ?? undefined;
process.env.PORT = String(port);

function requestHeaders(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return headers;
}

/** A fetch Response (the route handlers' shape) written to node's response. */
async function sendResponse(res: http.ServerResponse, response: Response, extra: Record<string, string>): Promise<void> {
  const headers: Record<string, string> = { ...extra };
  response.headers.forEach((value, name) => (headers[name] = value));
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, headers).end(body);
}

/**
 * The rest of a body answered before it was read (a refusal mid-upload): read and dropped, for at
 * most 30 s, so the client that is still sending gets to read the answer; closing with bytes
 * unread would reset the connection under it.
 */
function drainUnread(req: http.IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  const stop = setTimeout(() => req.destroy(), 30_000);
  stop.unref();
  req.once('end', () => clearTimeout(stop));
  req.once('close', () => clearTimeout(stop));
  req.resume();
}

/** The most of an upload read to its end before its refusal is answered. */
const READ_BEFORE_REFUSAL_BYTES = 16 * 1024 * 1024;

/**
 * An upload answered before it was read whole (a refusal: no name, a bad token, a zip past its
 * limits): a body of at most 16 MiB is read to its end first, so the client has sent everything
 * when the answer comes and the connection stays usable. Answered earlier with `connection:
 * close`, Node destroyed the socket with bytes unread and the client met EPIPE instead of the
 * answer (13 of 200 such uploads under load). A larger or unsized body still gets that.
 */
function readRestOfSmallBody(req: http.IncomingMessage): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  const length = Number(req.headers['content-length']);
  if (!Number.isSafeInteger(length) || length > READ_BEFORE_REFUSAL_BYTES) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 30_000);
    timer.unref();
    const done = () => (clearTimeout(timer), resolve(req.complete));
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}

const API_HEADERS: Record<string, string> = { ...STATIC_SECURITY_HEADERS, 'content-security-policy': NON_PAGE_CSP };

await startServer();
const app = next({ dev: false, dir: process.cwd(), port, hostname });
await app.prepare();
const handleNext = app.getRequestHandler();

const handleTrpc = createHTTPHandler({
  router: appRouter,
  basePath: '/api/trpc/',
  maxBodySize: MAX_BODY_BYTES,
  createContext: ({ req }) => createTRPCContext({ headers: requestHeaders(req.headers) }),
  responseMeta: trpcResponseMeta,
  onError({ error, path }) {
    if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`[trpc] ${path ?? '?'}:`, error.cause ?? error);
  },
});

// Cluster mode only (OPENPROGRAM_CLUSTER_DB): each request of a signed-in user is checked against
// the user's owner first. The embedded default never takes this path.
const cluster = getClusterNode();

const server = http.createServer((req, res) => {
  // Before anything reads them: forwarded headers count only from a trusted proxy.
  settleForwardedHeaders(req.headers, req.socket.remoteAddress);
  if (!cluster) {
    route(req, res);
    return;
  }
  admitClusterRequest(req, res, cluster)
    .then((admitted) => {
      if (admitted) route(req, res);
    })
    .catch((error: unknown) => {
      console.error('[cluster]', error);
      if (!res.headersSent) res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":{"message":"the cluster check failed; try again"}}');
      else res.end();
    });
});

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = req.url ?? '/';
  if (url.startsWith(PROXY_PREFIX)) {
    // The recording proxy (DESIGN §12): node's http end to end, each upstream chunk written as it comes.
    serveProxy(req, res).catch((error: unknown) => {
      console.error('[proxy]', (error as Error).message);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"message":"the proxy failed"}}');
      else res.destroy();
    });
    return;
  }
  if (url.startsWith(CONTROL_PREFIX)) {
    // A mover's calls (a user moved between instances): small JSON bodies, the cluster secret.
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      answerControl(url.split('?')[0]!, req.method ?? 'GET', requestHeaders(req.headers), Buffer.concat(chunks).toString('utf8'))
        .then(({ status, body }) => res.writeHead(status, { ...API_HEADERS, 'content-type': 'application/json' }).end(JSON.stringify(body)))
        .catch((error: unknown) => {
          console.error('[cluster]', error);
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"the control call failed"}');
        });
    });
    return;
  }
  if (url.startsWith('/api/trpc/')) {
    for (const [name, value] of Object.entries(API_HEADERS)) res.setHeader(name, value);
    void handleTrpc(req, res);
    return;
  }
  if (url === '/api/events' || url.startsWith('/api/events?')) {
    // Thousands of open streams: each event is one socket write, without Next's stream layers.
    serveEvents(req, res, requestHeaders(req.headers), API_HEADERS).catch((error: unknown) => {
      console.error('[events]', error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
    return;
  }
  if (url === '/mcp' || url.startsWith('/mcp?')) {
    for (const [name, value] of Object.entries(API_HEADERS)) res.setHeader(name, value);
    serveMcpNode(req, res, requestHeaders(req.headers)).catch((error: unknown) => {
      console.error('[mcp]', error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.end();
    });
    return;
  }
  if (req.method === 'POST' && (url === '/api/import' || url.startsWith('/api/import?'))) {
    // Straight from the socket: an export of hundreds of MB streams into the parser, never buffered.
    // Not destroyed when the import stops reading early (a zip past its limits, a refused file):
    // a destroyed socket is reset, and the client would get EPIPE instead of the refusal.
    importUpload(requestHeaders(req.headers), new URL(url, 'http://localhost'), req.iterator({ destroyOnReturn: false }))
      .then(async (response) => {
        const wholeBodyRead = await readRestOfSmallBody(req);
        await sendResponse(res, response, wholeBodyRead ? API_HEADERS : { ...API_HEADERS, connection: 'close' });
        if (!wholeBodyRead) drainUnread(req);
      })
      .catch((error: unknown) => {
        console.error('[import]', error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'the import failed; see the server log' }));
        else res.end();
      });
    return;
  }
  if (url.startsWith('/api/export/')) {
    // Streamed downloads, written as they are made: no Next stream layer between them and the socket.
    void serveExport(req, res);
    return;
  }
  if (req.method === 'POST' && url.startsWith('/api/auth/callback/credentials')) {
    answerRateLimitedSignIns(req, res, cluster ? (response, userId) => setRouteCookieOnSignIn(req, response, userId) : undefined);
  }
  void handleNext(req, res);
}
// npm start, start:bun or start:deno: the log says which runtime answers.
const versions = process.versions as Record<string, string | undefined>;
const runtime = versions.bun ? `Bun ${versions.bun}` : versions.deno ? `Deno ${versions.deno}` : `Node ${process.version}`;
server.listen(port, hostname, () => {
  console.log(`[entity-memory] Ready on http://${hostname ?? 'localhost'}:${port} (${runtime})`);
});
