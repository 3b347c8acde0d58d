/**
 * `/mcp`: the MCP server over Streamable HTTP, stateless (a server and transport per request),
 * with the same bearer tokens as the API. Only `Authorization: Bearer` counts: a browser's cookie
 * never reaches these tools, so no other site can make a signed-in browser call them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createCaller } from '@/server/api/root';
import { createTRPCContext } from '@/server/api/trpc';
import { createMcpServer, type McpCaller } from './tools';

type McpAuth = { ok: true; api: McpCaller } | { ok: false; status: 401; message: string };

/** The token's user as an API caller (the same context as a Bearer call to /api/trpc). */
export async function authenticateMcp(headers: Headers): Promise<McpAuth> {
  if (!headers.get('authorization')) return { ok: false, status: 401, message: 'send Authorization: Bearer <API token>' };
  const ctx = await createTRPCContext({ headers });
  if (!ctx.user) return { ok: false, status: 401, message: ctx.authError ?? 'send Authorization: Bearer <API token>' };
  return { ok: true, api: createCaller(ctx) };
}

function refusalBody(message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null });
}

const REFUSAL_HEADERS = { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="entity-memory"' };

/** For the node server (server/http/serve.ts). */
export async function serveMcpNode(req: IncomingMessage, res: ServerResponse, headers: Headers): Promise<void> {
  const auth = await authenticateMcp(headers);
  if (!auth.ok) {
    res.writeHead(auth.status, REFUSAL_HEADERS).end(refusalBody(auth.message));
    return;
  }
  const server = createMcpServer(auth.api);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** For Next's route handler (app/mcp/route.ts, `next dev`). */
export async function handleMcpRequest(request: Request): Promise<Response> {
  const auth = await authenticateMcp(request.headers);
  if (!auth.ok) return new Response(refusalBody(auth.message), { status: auth.status, headers: REFUSAL_HEADERS });
  const server = createMcpServer(auth.api);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    void server.close();
  }
}
