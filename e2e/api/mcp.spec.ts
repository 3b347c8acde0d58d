import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { appendMessage, BASE_URL, createSession, createToken, expect, mutate, test } from '../fixtures';

/** The SDK's own client on /mcp with a bearer token, as `claude mcp add --transport http` sets it up. */
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', BASE_URL), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const [first] = result.content as Array<{ type: string; text: string }>;
  return first!.text;
}

test('the MCP server lists its tools and finds a message; another user finds nothing of it; a revoked token is refused', async ({ user, adminApi }) => {
  const session = await createSession(user.api, { title: 'Parser work' });
  const question = await appendMessage(user.api, session.id, { role: 'user', content: 'Where does parse_date handle time zones?' });
  const answer = await appendMessage(user.api, session.id, { role: 'assistant', content: 'It converts everything to UTC with a quetzalcoatl offset table.' });
  const { id: tokenId, token } = await createToken(user.api, 'mcp');

  const client = await connect(token);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'list_sessions', 'read_session', 'search_sessions', 'set_state', 'tag_session']);

  const found = JSON.parse(textOf(await client.callTool({ name: 'search_sessions', arguments: { query: 'quetzalcoatl' } }))) as {
    hits: Array<{ sessionId: string; messageId: string; title: string; snippet: string }>;
  };
  expect(found.hits).toEqual([expect.objectContaining({ sessionId: session.id, messageId: answer.id, title: 'Parser work', snippet: expect.stringContaining('«quetzalcoatl»') })]);

  const listed = JSON.parse(textOf(await client.callTool({ name: 'list_sessions', arguments: {} }))) as { sessions: Array<{ sessionId: string }> };
  expect(listed.sessions.map((row) => row.sessionId)).toEqual([session.id]);

  const read = JSON.parse(textOf(await client.callTool({ name: 'read_session', arguments: { sessionId: session.id, messageId: answer.id } }))) as {
    messages: Array<{ id: string; content: string }>;
    olderBefore: string | null;
  };
  expect(read.messages.map((message) => message.id)).toEqual([question.id, answer.id]);
  expect(read.olderBefore).toBeNull();
  const unknown = await client.callTool({ name: 'read_session', arguments: { sessionId: 'no-such-session' } });
  expect(unknown.isError).toBe(true);
  await client.close();

  // Another user's token: the same words find nothing, the session is unknown.
  const { token: adminToken } = await createToken(adminApi, 'mcp-admin');
  const other = await connect(adminToken);
  const none = JSON.parse(textOf(await other.callTool({ name: 'search_sessions', arguments: { query: 'quetzalcoatl' } }))) as { hits: unknown[] };
  expect(none.hits).toEqual([]);
  const foreign = await other.callTool({ name: 'read_session', arguments: { sessionId: session.id } });
  expect(foreign.isError).toBe(true);
  expect(textOf(foreign)).not.toContain('quetzalcoatl');
  await other.close();

  // Revoked: refused with 401 before any tool runs; no token at all, the same.
  expect((await mutate(user.api, 'token.revoke', { id: tokenId })).status).toBe(200);
  await expect(connect(token)).rejects.toThrow(/401|invalid, expired or revoked/);
  const anonymous = await fetch(`${BASE_URL}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
});
