import { describe, expect, it } from 'vitest';
import { mergePatch, placeRow, removeRow, rowMatches } from '@/components/live/session-list-patch';
import type { SessionListData, SessionRow } from '@/components/sessions/session-types';

function row(id: string, updatedAt: number, extra: Partial<SessionRow> = {}): SessionRow {
  return {
    id, agentId: 'main', title: id, createdAt: 0, updatedAt, source: 'web', channel: null, accountId: null,
    peerDisplay: null, peerId: null, pinned: false, archived: false, group: '', status: 'idle', unread: false,
    preview: null, project: 'Home', agentName: null, wayIn: 'web chat', agentGroup: 'You, in the web chat', tags: [], state: null, machine: null, ...extra,
  };
}

function list(pages: SessionRow[][], more = false): SessionListData {
  return {
    pages: pages.map((rows, i) => ({ rows, nextCursor: i === pages.length - 1 && !more ? null : `c${i}` })),
    pageParams: pages.map((_, i) => (i === 0 ? null : `c${i - 1}`)),
  };
}

const ids = (data: SessionListData) => data.pages.map((page) => page.rows.map((r) => r.id));

describe('placeRow', () => {
  it('inserts by recency, ties by id, across pages', () => {
    const data = list([[row('a', 50), row('b', 40)], [row('c', 30), row('d', 20)]]);
    expect(ids(placeRow(data, {}, row('x', 35)))).toEqual([['a', 'b'], ['x', 'c', 'd']]);
    expect(ids(placeRow(data, {}, row('aa', 50)))).toEqual([['a', 'aa', 'b'], ['c', 'd']]);
    expect(ids(placeRow(data, {}, row('new', 99)))).toEqual([['new', 'a', 'b'], ['c', 'd']]);
  });

  it('moves a row whose updatedAt changed, and keeps it once', () => {
    const data = list([[row('a', 50), row('b', 40), row('c', 30)]]);
    expect(ids(placeRow(data, {}, row('c', 60)))).toEqual([['c', 'a', 'b']]);
  });

  it('leaves a row older than everything loaded to paging while more pages exist', () => {
    const data = list([[row('a', 50)]], true);
    expect(ids(placeRow(data, {}, row('old', 1)))).toEqual([['a']]);
    expect(ids(placeRow(list([[row('a', 50)]]), {}, row('old', 1)))).toEqual([['a', 'old']]);
  });

  it('moves rows between scopes and pinned lists on archive and pin', () => {
    const active = list([[row('a', 50), row('b', 40)]]);
    const archived = list([[row('z', 45, { archived: true })]]);
    const b = row('b', 40, { archived: true });
    expect(ids(placeRow(active, { scope: 'active' }, b))).toEqual([['a']]);
    expect(ids(placeRow(archived, { scope: 'archived' }, b))).toEqual([['z', 'b']]);
    expect(ids(placeRow(active, { pinned: false }, row('a', 50, { pinned: true })))).toEqual([['b']]);
  });

  it('keeps a search list to the rows that match', () => {
    const data = list([[row('a', 50, { title: 'Alpha' })]]);
    expect(ids(placeRow(data, { q: 'beta' }, row('b', 60, { title: 'Beta two' })))).toEqual([['b', 'a']]);
    expect(ids(placeRow(data, { q: 'alp' }, row('a', 50, { title: 'Renamed' })))).toEqual([[]]);
  });
});

describe('rowMatches', () => {
  it('follows the server filter, and cannot tell a project filter from a row', () => {
    expect(rowMatches({}, row('a', 1, { archived: true }))).toBe(false);
    expect(rowMatches({ scope: 'all' }, row('a', 1, { archived: true }))).toBe(true);
    expect(rowMatches({ q: 'HELLO' }, row('a', 1, { title: '', preview: 'say hello' }))).toBe(true);
    expect(rowMatches({ projectId: 'p1' }, row('a', 1))).toBeUndefined();
  });
});

describe('removeRow and mergePatch', () => {
  it('returns the same object when the id is absent', () => {
    const data = list([[row('a', 1)]]);
    expect(removeRow(data, 'nope')).toBe(data);
    expect(ids(removeRow(data, 'a'))).toEqual([[]]);
  });

  it('lets the newest updatedAt win', () => {
    const known = row('a', 100, { preview: 'new' });
    expect(mergePatch(known, { id: 'a', updatedAt: 90, preview: 'old', title: 'T' })).toMatchObject({ updatedAt: 100, preview: 'new', title: 'T' });
    expect(mergePatch(known, { id: 'a', updatedAt: 110, preview: 'newer' })).toMatchObject({ updatedAt: 110, preview: 'newer' });
  });
});

describe('rowMatches by agent', () => {
  it('takes a live row into a list filtered by its agent group, as session.list {agent} does', () => {
    const imported = row('cc', 1, { agentId: 'main', source: 'claude-code', agentName: 'Claude Code', wayIn: 'imported', agentGroup: 'Claude Code' });
    expect(rowMatches({ scope: 'active', agent: 'Claude Code' }, imported)).toBe(true);
    expect(rowMatches({ scope: 'active', agent: 'Claude Code' }, row('mine', 1))).toBe(false);
    expect(rowMatches({ scope: 'active', agent: 'You, in the web chat' }, row('mine', 1))).toBe(true);
  });
});
