import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { replyFor, scriptOf, type Body } from './script.js';

/**
 * The project's own OpenAI-compatible model server for tests and local use, on loopback. It
 * answers deterministically (see script.ts for the markers a test writes into its message:
 * tool calls, delays, failures). `GET /requests` lists what it received, with how long each
 * answer took, so a test can look at what the app sent and a bench can subtract the model's time.
 */
export interface ModelServer {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export interface ReceivedRequest {
  body: Body;
  receivedAt: number;
  /** ms from the request's last byte to the answer's last byte */
  durationMs: number | null;
}

export { replyFor } from './script.js';

export interface ModelServerOptions {
  /** ms between streamed pieces for every request (MODEL_SERVER_DELAY_MS) */
  delayMs?: number;
  /** every chat request fails with 500 (MODEL_SERVER_FAIL=1) */
  fail?: boolean;
  /** model ids GET /v1/models lists */
  models?: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startModelServer(port = 0, host = '127.0.0.1', options: ModelServerOptions = {}): Promise<ModelServer> {
  const requests: ReceivedRequest[] = [];
  const models = options.models ?? ['test-model', 'test-title-model'];
  /** the texts `[[fail:once]]` already failed for */
  const failedOnce = new Set<string>();

  async function answer(body: Body, response: ServerResponse, record: ReceivedRequest): Promise<void> {
    const script = scriptOf(body);
    const delay = script.delayMs ?? options.delayMs ?? 0;
    if (script.waitMs > 0) await sleep(script.waitMs);
    const failNow = script.fail === 'once' && !failedOnce.has(script.text);
    if (failNow) failedOnce.add(script.text);
    if (options.fail || script.fail === 'status' || failNow) {
      json(response, 500, { error: { message: 'scripted failure of the test model' } });
      return;
    }
    const reply = replyFor(body);
    const model = body.model ?? 'test-model';
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'cmpl-test', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    if (!body.stream) {
      const message = reply.toolCalls.length > 0 ? { role: 'assistant', content: null, tool_calls: wireCalls(reply.toolCalls) } : { role: 'assistant', content: reply.text };
      json(response, 200, { id: 'cmpl-test', object: 'chat.completion', model, choices: [{ index: 0, message, finish_reason: reply.toolCalls.length ? 'tool_calls' : 'stop' }] });
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const pieces = reply.text === '' ? [] : reply.text.split(/(?<= )/);
    let sent = 0;
    for (const piece of pieces) {
      if (response.destroyed) return;
      if (delay > 0) await sleep(delay);
      await new Promise((resolve) => response.write(chunk({ content: piece }), resolve));
      sent++;
      if (script.fail === 'stream' && sent >= 2) {
        await sleep(50); // let what was written reach the client first
        response.destroy(); // broken off in the middle, as a crashed model server would
        return;
      }
    }
    if (reply.toolCalls.length > 0) {
      // The call's arguments in two pieces, as real servers send them.
      wireCalls(reply.toolCalls).forEach((call, index) => {
        const half = Math.ceil(call.function.arguments.length / 2);
        response.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) } }] }));
        response.write(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] }));
      });
    }
    response.write(chunk({}, reply.toolCalls.length > 0 ? 'tool_calls' : 'stop'));
    record.durationMs = performance.now() - record.receivedAt;
    response.end('data: [DONE]\n\n');
  }

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const url = request.url ?? '/';
    if (request.method === 'GET' && (url === '/v1/models' || url === '/models')) {
      json(response, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'entity-memory-tests' })) });
      return;
    }
    if (request.method === 'GET' && url === '/requests') {
      json(response, 200, { requests });
      return;
    }
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      json(response, 404, { error: 'not found' });
      return;
    }
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      let body: Body;
      try {
        body = JSON.parse(raw) as Body;
      } catch {
        json(response, 400, { error: 'bad json' });
        return;
      }
      const record: ReceivedRequest = { body, receivedAt: performance.now(), durationMs: null };
      requests.push(record);
      if (requests.length > 5_000) requests.splice(0, requests.length - 5_000);
      response.on('finish', () => (record.durationMs ??= performance.now() - record.receivedAt));
      answer(body, response, record).catch(() => response.destroy());
    });
  }

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function wireCalls(calls: { id: string; name: string; arguments: string }[]) {
  return calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } }));
}

// `tsx lib/llm/testing/model-server.ts [port]` serves it for a manual run or Playwright.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const port = Number(process.argv[2] ?? 0);
  const delayMs = Number(process.env['MODEL_SERVER_DELAY_MS'] ?? 0) || 0;
  const fail = process.env['MODEL_SERVER_FAIL'] === '1';
  void startModelServer(port, '127.0.0.1', { delayMs, fail }).then((server) => process.stdout.write(`model server at ${server.url}\n`));
}
