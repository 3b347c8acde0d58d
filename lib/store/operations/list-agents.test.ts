import { describe, expect, it } from 'vitest';
import type { StoreEvent } from '../events.js';
import { tempStoresPerTest } from '../testing/temp-store.js';

describe('who wrote a session', () => {
  const fresh = tempStoresPerTest();

  it('lists each agent with its source and count, and filters the list by agent', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 'w1', source: 'web' });
    await store.createSession({ id: 'w2', source: 'web' });
    await store.createSession({ id: 'c1', agentId: 'claude-code', source: 'api' });
    await store.createSession({ id: 'x1', agentId: 'codex', source: 'proxy' });
    await store.setArchived('x1', true);
    expect(store.listAgents()).toEqual([
      { agentId: 'main', source: 'web', sessions: 2 },
      { agentId: 'claude-code', source: 'api', sessions: 1 },
      { agentId: 'codex', source: 'proxy', sessions: 1 },
    ]);
    expect(store.listAgents({ scope: 'active' }).map((agent) => agent.agentId)).toEqual(['main', 'claude-code']);
    expect(store.listAgents({ scope: 'archived' }).map((agent) => agent.agentId)).toEqual(['codex']);
    expect(store.listSessions({ agentId: 'claude-code' }).rows.map((row) => row.id)).toEqual(['c1']);
    expect(store.listSessions({ agentId: 'main', source: 'web' }).rows.map((row) => row.id).sort()).toEqual(['w1', 'w2']);
    expect(store.listSessions({ agentId: 'nobody' }).rows).toEqual([]);
  });

  it('an agent\'s assistant message marks the session unread; the person\'s own and other roles do not', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 's', agentId: 'bot', source: 'api' });
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    await store.appendMessage('s', { role: 'user', content: 'question' }, { byAgent: true });
    expect((await store.getSession('s')).unread).toBe(false);
    await store.appendMessage('s', { role: 'assistant', content: 'from the web chat' });
    expect((await store.getSession('s')).unread).toBe(false);
    await store.appendMessage('s', { role: 'assistant', content: 'from the agent' }, { byAgent: true });
    expect((await store.getSession('s')).unread).toBe(true);
    expect(events.filter((event) => event.type === 'session_updated').at(-1)?.data).toMatchObject({ id: 's', unread: true });
    // Opening it marks it read; kept in meta.json, so a rebuilt registry says the same.
    await store.updateSession('s', { unread: false });
    expect(store.listSessions({ unread: true }).rows).toEqual([]);
  });
});
