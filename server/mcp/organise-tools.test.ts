import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, mcpTestbed, textOf } from './testing/mcp-client';

// Before anything opens a store: the runtime reads its environment once.
const bed = mcpTestbed('em-mcp-organise-');
const { callerFor, mcpFor } = bed;

beforeAll(async () => {
  await bed.load();
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
