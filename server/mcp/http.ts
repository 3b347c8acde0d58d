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
import { admitRead } from '@/server/cluster/user-gate';
import { misdirectedAnswer } from '@/server/cluster/misdirected';
import { createMcpServer, type McpCaller } from './tools';
import { FULL_ACCESS, type TokenAccess } from '@/lib/auth/index';
import { missingScope } from '@/server/http/route-access';

/**
 * The `mcp` scope is the whole MCP surface: its tools read and organise (tags, state, notes)
 * through the procedures, so inside it the token reads and writes, still within its project.
 */
function mcpToolAccess(access: TokenAccess): TokenAccess {
  return { scopes: ['read', 'write', 'mcp'], projectId: access.projectId };
}

type McpAuth = { ok: true; api: McpCaller } | { ok: false; status: 401 | 403 | 421; body: string; headers: Record<string, string> };

const REFUSAL_HEADERS = { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="entity-memory"' };

function unauthorized(message: string): McpAuth {
  return { ok: false, status: 401, body: JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }), headers: REFUSAL_HEADERS };
}

/** The token's user as an API caller (the same context as a Bearer call to /api/trpc). */
export async function authenticateMcp(headers: Headers): Promise<McpAuth> {
  if (!headers.get('authorization')) return unauthorized('send Authorization: Bearer <API token>');
  const ctx = await createTRPCContext({ headers });
  if (!ctx.user) return unauthorized(ctx.authError ?? 'send Authorization: Bearer <API token>');
  const lacking = missingScope(ctx.access ?? FULL_ACCESS, 'mcp');
  if (lacking !== null) return { ok: false, status: 403, body: JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: lacking }, id: null }), headers: REFUSAL_HEADERS };
  // The tools only read, so a freeze does not stop them; a user moved away is sent to the owner.
  const refusal = admitRead(ctx.user.id);
  if (refusal?.kind === 'moved') {
    const answer = misdirectedAnswer(refusal.owner);
    return { ok: false, status: 421, body: JSON.stringify(answer.body), headers: answer.headers };
  }
  return { ok: true, api: createCaller({ ...ctx, access: mcpToolAccess(ctx.access ?? FULL_ACCESS) }) };
}

/** For the node server (server/http/serve.ts). */
export async function serveMcpNode(req: IncomingMessage, res: ServerResponse, headers: Headers): Promise<void> {
  const auth = await authenticateMcp(headers);
  if (!auth.ok) {
    res.writeHead(auth.status, auth.headers).end(auth.body);
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
  if (!auth.ok) return new Response(auth.body, { status: auth.status, headers: auth.headers });
  const server = createMcpServer(auth.api);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    void server.close();
  }
}
