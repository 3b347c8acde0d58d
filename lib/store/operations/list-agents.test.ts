import { describe, expect, it } from 'vitest';
import type { StoreEvent } from '../events.js';
import { tempStoresPerTest } from '../testing/temp-store.js';

describe('who wrote a session', () => {
  const fresh = tempStoresPerTest();

  it('lists each agent once, whichever way its sessions came in, and filters the list by that agent', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 'w1', source: 'web' });
    await store.createSession({ id: 'w2', source: 'web' });
    await store.createSession({ id: 'c1', agentId: 'claude-code', source: 'api' });
    await store.createSession({ id: 'c2', agentId: 'claude-code', source: 'proxy:claude-code' });
    await store.importSession({ id: 'cc-imported', source: 'claude-code', turns: [[{ id: 'u1', createdAt: 1, role: 'user', content: 'hi', parentId: null }]] });
    await store.createSession({ id: 'x1', agentId: 'codex', source: 'proxy:codex' });
    await store.setArchived('x1', true);
    expect(store.listAgents()).toEqual([
      { agent: 'Claude Code', wayIn: ['API', 'imported', 'recorded'], sessions: 3 },
      { agent: 'You, in the web chat', wayIn: ['web chat'], sessions: 2 },
      { agent: 'Codex', wayIn: ['recorded'], sessions: 1 },
    ]);
    expect(store.listAgents({ scope: 'active' }).map((agent) => agent.agent)).toEqual(['Claude Code', 'You, in the web chat']);
    expect(store.listAgents({ scope: 'archived' }).map((agent) => agent.agent)).toEqual(['Codex']);
    expect(store.listSessions({ agent: 'Claude Code' }).rows.map((row) => row.id).sort()).toEqual(['c1', 'c2', 'cc-imported']);
    expect(store.countSessions({ agent: 'Claude Code' })).toBe(3);
    expect(store.listSessions({ agent: 'You, in the web chat' }).rows.map((row) => row.id).sort()).toEqual(['w1', 'w2']);
    expect(store.listSessions({ agentId: 'claude-code' }).rows.map((row) => row.id).sort()).toEqual(['c1', 'c2']);
    expect(store.listSessions({ agent: 'nobody' }).rows).toEqual([]);
    // Each row says both facts: who, and how it came in.
    const rows = new Map(store.listSessions({ scope: 'all' }).rows.map((row) => [row.id, row]));
    expect([rows.get('cc-imported'), rows.get('c2'), rows.get('c1'), rows.get('w1')].map((row) => [row?.agentName, row?.wayIn])).toEqual([
      ['Claude Code', 'imported'],
      ['Claude Code', 'recorded'],
      ['Claude Code', 'API'],
      [null, 'web chat'],
    ]);
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
