import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { SessionCache } from '@/components/live/session-cache';
import type { SessionListData, SessionPage, SessionRow } from '@/components/sessions/session-types';

function row(id: string, updatedAt: number, extra: Partial<SessionRow> = {}): SessionRow {
  return {
    id, agentId: 'main', title: id, createdAt: 0, updatedAt, source: 'web', channel: null, accountId: null,
    peerDisplay: null, peerId: null, pinned: false, archived: false, group: '', status: 'idle', unread: false,
    preview: null, project: 'Home', agentName: null, wayIn: 'web chat', agentGroup: 'You, in the web chat', tags: [], state: null, machine: null, ...extra,
  };
}

// The keys tRPC builds: [path, { input, type }].
const listKey = (input: object, type = 'infinite') => [['session', 'list'], { input, type }];
const getKey = (id: string) => [['session', 'get'], { input: { id }, type: 'query' }];

function setUp() {
  const client = new QueryClient();
  const cache = new SessionCache(client, { listPath: [['session', 'list']], getPath: [['session', 'get']] });
  const active: SessionListData = { pages: [{ rows: [row('a', 30), row('b', 20)], nextCursor: null }], pageParams: [null] };
  const archived: SessionListData = { pages: [{ rows: [row('z', 25, { archived: true })], nextCursor: null }], pageParams: [null] };
  client.setQueryData(listKey({ scope: 'active' }), active);
  client.setQueryData(listKey({ scope: 'archived' }), archived);
  client.setQueryData(listKey({ scope: 'all' }, 'query'), { rows: [row('a', 30), row('z', 25, { archived: true }), row('b', 20)], nextCursor: null });
  client.setQueryData(getKey('b'), { ...row('b', 20), headId: 'n1', turnCount: 1 });
  const ids = (input: object, type = 'infinite') => {
    const data = client.getQueryData<SessionListData | SessionPage>(listKey(input, type));
    return type === 'infinite' ? (data as SessionListData).pages.flatMap((page) => page.rows.map((r) => r.id)) : (data as SessionPage).rows.map((r) => r.id);
  };
  return { client, cache, ids };
}

describe('SessionCache', () => {
  it('moves an archived row between scope lists and patches session.get', () => {
    const { client, cache, ids } = setUp();
    expect(cache.patch({ id: 'b', archived: true })).toBe(true);
    expect(ids({ scope: 'active' })).toEqual(['a']);
    expect(ids({ scope: 'archived' })).toEqual(['z', 'b']);
    expect(ids({ scope: 'all' }, 'query')).toEqual(['a', 'z', 'b']);
    expect(client.getQueryData<SessionRow & { headId: string }>(getKey('b'))).toMatchObject({ archived: true, headId: 'n1' });
  });

  it('re-sorts on a newer updatedAt, inserts created rows, removes deleted ones', () => {
    const { cache, ids } = setUp();
    cache.patch({ id: 'b', updatedAt: 40, preview: 'new message' });
    expect(ids({ scope: 'active' })).toEqual(['b', 'a']);
    cache.put(row('c', 50));
    expect(ids({ scope: 'active' })).toEqual(['c', 'b', 'a']);
    expect(ids({ scope: 'archived' })).toEqual(['z']);
    cache.remove('a');
    expect(ids({ scope: 'active' })).toEqual(['c', 'b']);
    expect(ids({ scope: 'all' }, 'query')).toEqual(['c', 'b', 'z']);
  });

  it('reports a row it does not know, so the caller fetches it', () => {
    const { cache } = setUp();
    expect(cache.patch({ id: 'unknown', title: 'x' })).toBe(false);
    expect(cache.known('z')?.archived).toBe(true);
  });
});
