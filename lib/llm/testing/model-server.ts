import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import { replyFor, scriptOf, type Body } from './script.js';
import { answerAnthropic, answerResponses, tokens, type Out } from './wire-answers.js';
import { chatFromAnthropic, chatFromResponses, type AnthropicRequest, type ResponsesRequest } from './wire-requests.js';

/**
 * The project's own model server for tests and local use, on loopback, speaking three wire
 * formats: OpenAI Chat Completions (`POST /v1/chat/completions`), OpenAI Responses
 * (`POST /v1/responses`) and Anthropic Messages (`POST /v1/messages`), streamed or not, and
 * `GET /v1/models`. It answers deterministically (see script.ts for the markers a test writes
 * into its message: tool calls, thinking, delays, failures). `GET /requests` lists what it
 * received, with the bytes it answered and how long that took, so a test can look at what the
 * app sent and a bench can subtract the model's time.
 */
export interface ModelServer {
  /** the OpenAI base URL, with `/v1` */
  url: string;
  /** the API root without `/v1` (what ANTHROPIC_BASE_URL takes) */
  root: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export type Wire = 'chat' | 'responses' | 'anthropic';

export interface ReceivedRequest {
  /** the parsed JSON body, in the request's own wire format */
  body: Body;
  wire: Wire;
  path: string;
  headers: IncomingHttpHeaders;
  receivedAt: number;
  /** ms from the request's last byte to the answer's last byte */
  durationMs: number | null;
  /** every byte of the answer's body as sent (utf8) */
  sent: string;
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
    const promptTokens = tokens(JSON.stringify(body.messages ?? []));
    const completionTokens = tokens(reply.text + JSON.stringify(reply.toolCalls));
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    if (!body.stream) {
      const message = reply.toolCalls.length > 0 ? { role: 'assistant', content: null, tool_calls: wireCalls(reply.toolCalls) } : { role: 'assistant', content: reply.text };
      json(response, 200, { id: 'cmpl-test', object: 'chat.completion', model, choices: [{ index: 0, message, finish_reason: reply.toolCalls.length ? 'tool_calls' : 'stop' }], usage });
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
    // Asked for (stream_options.include_usage): one last chunk with no choices and the usage, as OpenAI sends it.
    const streamOptions = (body as { stream_options?: { include_usage?: boolean } }).stream_options;
    if (streamOptions?.include_usage) response.write(`data: ${JSON.stringify({ id: 'cmpl-test', object: 'chat.completion.chunk', model, choices: [], usage })}\n\n`);
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
    // A path prefix (`/<name>/v1/messages`) is a second model at the same server: an upstream of its own whose requests the list tells apart by `path`.
    const wire: Wire | null = request.method !== 'POST' ? null : WIRES[url.split('?')[0]!.replace(/^\/[\w-]+(?=\/v1\/)/, '')] ?? null;
    if (!wire) {
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
      const record: ReceivedRequest = { body, wire, path: url, headers: request.headers, receivedAt: performance.now(), durationMs: null, sent: '' };
      requests.push(record);
      if (requests.length > 5_000) requests.splice(0, requests.length - 5_000);
      recordSent(response, record);
      response.on('finish', () => (record.durationMs ??= performance.now() - record.receivedAt));
      const answered =
        wire === 'chat'
          ? answer(body, response, record)
          : (async () => {
              const script = scriptOf(wire === 'anthropic' ? chatFromAnthropic(body as AnthropicRequest) : chatFromResponses(body as ResponsesRequest));
              if (script.waitMs > 0) await sleep(script.waitMs);
              const out = sseOut(response, script.delayMs ?? options.delayMs ?? 0);
              if (options.fail) return out.json(500, { error: { message: 'scripted failure of the test model' } });
              return wire === 'anthropic' ? answerAnthropic(body as AnthropicRequest, out) : answerResponses(body as ResponsesRequest, out);
            })();
      answered.catch(() => response.destroy());
    });
  }

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/v1`,
    root: `http://${host}:${address.port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const WIRES: Record<string, Wire> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/messages': 'anthropic',
};

/** Keeps a copy of every byte written, so a test can compare what a client got through the proxy. */
function recordSent(response: ServerResponse, record: ReceivedRequest): void {
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  const keep = (chunk: unknown) => {
    if (typeof chunk === 'string') record.sent += chunk;
    else if (chunk instanceof Uint8Array) record.sent += Buffer.from(chunk).toString('utf8');
  };
  response.write = ((chunk: unknown, ...rest: unknown[]) => (keep(chunk), write(chunk, ...rest))) as ServerResponse['write'];
  response.end = ((chunk?: unknown, ...rest: unknown[]) => (typeof chunk !== 'function' && keep(chunk), end(chunk, ...rest))) as ServerResponse['end'];
}

function sseOut(response: ServerResponse, delayMs: number): Out {
  return {
    json: (status, body) => json(response, status, body),
    startStream: () => void response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }),
    event: async (name, data) => {
      if (delayMs > 0) await sleep(delayMs);
      if (response.destroyed) return false;
      const text = `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
      await new Promise((resolve) => response.write(text, resolve));
      return !response.destroyed;
    },
    end: (raw) => void response.end(raw),
    destroy: () => {
      // let what was written reach the client first, as with a crashed model server
      setTimeout(() => response.destroy(), 50);
    },
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
