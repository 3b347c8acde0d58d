import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The project's own OpenAI-compatible model server for tests and local use, on loopback. It
 * answers deterministically: a title request gets "Title: <first words of the user message>",
 * anything else "You said: <last user message>", streamed word by word when asked.
 */
export interface ModelServer {
  url: string;
  requests: unknown[];
  close(): Promise<void>;
}

interface Body {
  messages?: { role?: string; content?: unknown }[];
  stream?: boolean;
  model?: string;
}

export function replyFor(body: Body): string {
  const messages = body.messages ?? [];
  const system = messages.find((message) => message.role === 'system');
  const lastUser = [...messages].reverse().find((message) => message.role === 'user');
  const text = typeof lastUser?.content === 'string' ? lastUser.content : '';
  if (typeof system?.content === 'string' && system.content.startsWith('Generate a short, descriptive title')) {
    const firstUser = messages.find((message) => message.role === 'user');
    const words = String(firstUser?.content ?? '').split(/\s+/).filter(Boolean).slice(0, 4);
    return `Title: "${words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join(' ') || 'Untitled'}"`;
  }
  return `You said: ${text}`;
}

export async function startModelServer(port = 0, host = '127.0.0.1'): Promise<ModelServer> {
  const requests: unknown[] = [];
  const server: Server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
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
        response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad json"}');
        return;
      }
      requests.push(body);
      const reply = replyFor(body);
      const model = body.model ?? 'test-model';
      if (!body.stream) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id: 'cmpl-test', object: 'chat.completion', model, choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }] }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const pieces = reply.split(/(?<= )/);
      for (const piece of pieces) {
        response.write(`data: ${JSON.stringify({ id: 'cmpl-test', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
      }
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// `tsx lib/llm/testing/model-server.ts [port]` serves it for a manual run or Playwright.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const port = Number(process.argv[2] ?? 0);
  void startModelServer(port).then((server) => process.stdout.write(`model server at ${server.url}\n`));
}
