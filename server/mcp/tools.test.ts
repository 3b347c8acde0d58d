import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, mcpTestbed, textOf } from './testing/mcp-client';

// Before anything opens a store: the runtime reads its environment once.
const bed = mcpTestbed('em-mcp-tools-');
const { callerFor, mcpFor } = bed;
let gate: typeof import('@/server/cluster/user-gate');

beforeAll(async () => {
  await bed.load();
  gate = await import('@/server/cluster/user-gate');
  const alice = callerFor(ALICE);
  await alice.session.create({ id: 'mcp-one', title: 'Feathered serpent' });
  await alice.turn.begin({ sessionId: 'mcp-one' });
  await alice.message.append({ sessionId: 'mcp-one', message: { role: 'user', content: 'tell me about quetzalcoatl' } });
  await alice.message.append({ sessionId: 'mcp-one', message: { role: 'assistant', content: 'a deity' } });
  await alice.turn.finalize({ sessionId: 'mcp-one' });
});

afterAll(() => gate.getUserGate().clearMoved(ALICE));

describe('MCP tools call the procedures', () => {
  it('read a session of the caller, and refuse another user\'s like a missing one, with the API\'s message', async () => {
    const alice = await mcpFor(ALICE);
    const read = JSON.parse(textOf(await alice.callTool({ name: 'read_session', arguments: { sessionId: 'mcp-one' } }))) as { messages: Array<{ content: string }> };
    expect(read.messages.map((m) => m.content)).toEqual(['tell me about quetzalcoatl', 'a deity']);

    const bob = await mcpFor(BOB);
    const foreign = await bob.callTool({ name: 'read_session', arguments: { sessionId: 'mcp-one' } });
    const missing = await bob.callTool({ name: 'read_session', arguments: { sessionId: 'never-made' } });
    expect(foreign.isError).toBe(true);
    // The same refusal for both, as the API gives (NOT_FOUND from sessionProcedure), so an id's existence never shows.
    expect(textOf(foreign)).toBe(textOf(missing).replace('never-made', 'mcp-one'));
    await expect(callerFor(BOB).session.get({ id: 'mcp-one' })).rejects.toThrow(textOf(foreign));
  });

  it('answer nothing for a user this instance no longer owns (the procedures\' 421 check)', async () => {
    const alice = await mcpFor(ALICE);
    gate.getUserGate().markMoved(ALICE, { id: 'instance-b', url: 'http://b.invalid', epoch: 2 });
    try {
      for (const [name, args] of [
        ['search_sessions', { query: 'quetzalcoatl' }],
        ['list_sessions', {}],
        ['read_session', { sessionId: 'mcp-one' }],
      ] as const) {
        const outcome = await alice.callTool({ name, arguments: args }).then(
          (result) => ({ refused: result.isError === true, text: textOf(result) }),
          (error: Error) => ({ refused: true, text: error.message }),
        );
        expect(outcome, name).toMatchObject({ refused: true });
        expect(outcome.text, name).toContain('instance-b');
      }
    } finally {
      gate.getUserGate().clearMoved(ALICE);
    }
  });
});
