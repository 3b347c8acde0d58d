import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { UserRecord } from '@/lib/auth/index';

// Types only: the tests import the router and the tools after setting OPENPROGRAM_DATA_DIR (the
// runtime reads its environment once), and hand the modules in.
type Api = typeof import('@/server/api/root');
type Tools = typeof import('../tools');

/** A plain (non-admin) user record for a unit test. */
export function unitUser(id: string): UserRecord {
  return { id, email: `${id}@unit.test`, passwordHash: 'x', admin: false, disabled: false, sessionVersion: 1, createdAt: 0, updatedAt: 0 };
}

/** The tRPC caller a bearer token of `id` gets. */
export const tokenCaller = (api: Api, id: string) =>
  api.createCaller({ headers: new Headers(), user: unitUser(id), via: 'token', authError: null, ip: null, responseCookies: [], answer: { headers: {} } });

/** An MCP client talking to the tools of one user's caller, in memory. */
export async function mcpClientFor(api: Api, tools: Tools, id: string): Promise<Client> {
  const server = tools.createMcpServer(tokenCaller(api, id));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '0' });
  await client.connect(clientSide);
  return client;
}

/** The text of a tool's first content block. */
export const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>)[0]!.text;

/** Two users of the tool tests, by id. */
export const ALICE = 'a1a1a1a1a1a1a1a1';
export const BOB = 'b2b2b2b2b2b2b2b2';

/**
 * The MCP tools on a data directory of their own: called at a test file's top level, it points
 * OPENPROGRAM_DATA_DIR at a fresh folder before anything opens a store; `load()` (in beforeAll)
 * then imports the router and the tools.
 */
export function mcpTestbed(prefix: string) {
  process.env.OPENPROGRAM_DATA_DIR = join(mkdtempSync(join(tmpdir(), prefix)), 'data');
  let api: Api | null = null;
  let tools: Tools | null = null;
  const loaded = () => {
    if (!api || !tools) throw new Error('mcpTestbed: load() first, in beforeAll');
    return { api, tools };
  };
  return {
    async load(): Promise<void> {
      api = await import('@/server/api/root');
      tools = await import('../tools');
    },
    callerFor: (id: string) => tokenCaller(loaded().api, id),
    mcpFor: (id: string) => mcpClientFor(loaded().api, loaded().tools, id),
  };
}
