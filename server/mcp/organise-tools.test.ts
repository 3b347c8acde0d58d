import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { UserRecord } from '@/lib/auth/index';

// The runtime reads its environment once: set it before importing anything that opens stores.
process.env.OPENPROGRAM_DATA_DIR = join(mkdtempSync(join(tmpdir(), 'em-mcp-organise-')), 'data');
let api: typeof import('@/server/api/root');
let tools: typeof import('./tools');

const ALICE = 'a1a1a1a1a1a1a1a1';
const BOB = 'b2b2b2b2b2b2b2b2';

function user(id: string): UserRecord {
  return { id, email: `${id}@unit.test`, passwordHash: 'x', admin: false, disabled: false, sessionVersion: 1, createdAt: 0, updatedAt: 0 };
}
const callerFor = (id: string) => api.createCaller({ headers: new Headers(), user: user(id), via: 'token', authError: null, ip: null, responseCookies: [], answer: { headers: {} } });

async function mcpFor(id: string): Promise<Client> {
  const server = tools.createMcpServer(callerFor(id));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '0' });
  await client.connect(clientSide);
  return client;
}
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>)[0]!.text;

beforeAll(async () => {
  api = await import('@/server/api/root');
  tools = await import('./tools');
  await callerFor(ALICE).session.create({ id: 'filed-work' });
});

describe('MCP tag_session, set_state and add_note (DESIGN §16)', () => {
  it('tag and set the state of the caller\'s own session', async () => {
    const alice = await mcpFor(ALICE);
    const tagged = await alice.callTool({ name: 'tag_session', arguments: { sessionId: 'filed-work', add: ['Refactor', 'auth'] } });
    expect(JSON.parse(textOf(tagged))).toEqual({ sessionId: 'filed-work', tags: ['auth', 'refactor'] });
    await alice.callTool({ name: 'set_state', arguments: { sessionId: 'filed-work', state: 'review' } });
    expect(await callerFor(ALICE).session.get({ id: 'filed-work' })).toMatchObject({ tags: ['auth', 'refactor'], state: 'review' });
    const bad = await alice.callTool({ name: 'tag_session', arguments: { sessionId: 'filed-work', add: ['two words'] } });
    expect(bad.isError).toBe(true);
    const noted = await alice.callTool({ name: 'add_note', arguments: { sessionId: 'filed-work', text: 'Ready for a **review**' } });
    expect(noted.isError).toBeFalsy();
    expect((await callerFor(ALICE).note.list({ id: 'filed-work' })).map((note) => note.text)).toEqual(['Ready for a **review**']);
  });

  it('refuse another user\'s session exactly like a missing one, and change nothing', async () => {
    const bob = await mcpFor(BOB);
    for (const [name, args] of [
      ['tag_session', { add: ['mine'] }],
      ['set_state', { state: 'done' }],
      ['add_note', { text: 'not yours' }],
    ] as const) {
      const foreign = await bob.callTool({ name, arguments: { sessionId: 'filed-work', ...args } });
      const missing = await bob.callTool({ name, arguments: { sessionId: 'never-made', ...args } });
      expect(foreign.isError, name).toBe(true);
      expect(textOf(foreign), name).toBe(textOf(missing).replace('never-made', 'filed-work'));
    }
    expect(await callerFor(ALICE).session.get({ id: 'filed-work' })).toMatchObject({ tags: ['auth', 'refactor'], state: 'review' });
    expect(await callerFor(ALICE).note.list({ id: 'filed-work' })).toHaveLength(1);
  });
});
