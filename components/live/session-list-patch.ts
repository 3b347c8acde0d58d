import type { SessionListData, SessionListInput, SessionRow } from '@/components/sessions/session-types';
import { organiseMatch } from './organise-match';

/** session.list's order: newest updatedAt first, ties by id. */
export function sortsBefore(a: SessionRow, b: SessionRow): boolean {
  return a.updatedAt > b.updatedAt || (a.updatedAt === b.updatedAt && a.id < b.id);
}

/**
 * Whether a row belongs in the list of that input, as the server's filter decides it; `undefined`
 * when the row does not carry what the filter needs (rows name their project, filters its id).
 */
export function rowMatches(input: SessionListInput, row: SessionRow): boolean | undefined {
  const scope = input.scope ?? 'active';
  if (scope === 'active' && row.archived) return false;
  if (scope === 'archived' && !row.archived) return false;
  if (input.pinned !== undefined && row.pinned !== input.pinned) return false;
  if (input.unread !== undefined && row.unread !== input.unread) return false;
  if (input.status !== undefined && row.status !== input.status) return false;
  if (input.source !== undefined && row.source !== input.source) return false;
  if (input.agentId !== undefined && row.agentId !== input.agentId) return false;
  if (input.agent !== undefined && row.agentGroup !== input.agent) return false;
  const organised = organiseMatch(input, row);
  if (!organised.matches) return false;
  const q = organised.text.trim().toLowerCase();
  if (q && !`${row.title ?? ''}\n${row.preview ?? ''}`.toLowerCase().includes(q)) return false;
  if (input.projectId !== undefined) return undefined;
  return true;
}

export function findRow(data: SessionListData | undefined, id: string): SessionRow | undefined {
  for (const page of data?.pages ?? []) {
    const row = page.rows.find((candidate) => candidate.id === id);
    if (row) return row;
  }
  return undefined;
}

/** The list without that id; the same object when it was not there (no re-render). */
export function removeRow(data: SessionListData, id: string): SessionListData {
  let changed = false;
  const pages = data.pages.map((page) => {
    if (!page.rows.some((row) => row.id === id)) return page;
    changed = true;
    return { ...page, rows: page.rows.filter((row) => row.id !== id) };
  });
  return changed ? { ...data, pages } : data;
}

/**
 * The list with the row at its place by recency, or without it when it no longer matches. A row
 * that sorts after everything loaded while more pages exist is left to paging (its place is not
 * loaded yet); cursors are (updatedAt, id) keys, so inserting into a page never shifts them.
 */
export function placeRow(data: SessionListData, input: SessionListInput, row: SessionRow): SessionListData {
  const without = removeRow(data, row.id);
  if (rowMatches(input, row) === false) return without;
  const pages = [...without.pages];
  for (let p = 0; p < pages.length; p++) {
    const page = pages[p]!;
    const at = page.rows.findIndex((candidate) => sortsBefore(row, candidate));
    if (at >= 0) {
      pages[p] = { ...page, rows: [...page.rows.slice(0, at), row, ...page.rows.slice(at)] };
      return { ...without, pages };
    }
  }
  const last = pages[pages.length - 1];
  if (!last || last.nextCursor) return without;
  pages[pages.length - 1] = { ...last, rows: [...last.rows, row] };
  return { ...without, pages };
}

/**
 * A session_updated patch over what is known of the row. Newest wins: an append older than the
 * row already shown (events crossing a refetch) does not move it back.
 */
export function mergePatch(known: SessionRow, patch: { id: string } & Partial<SessionRow>): SessionRow {
  if (patch.updatedAt !== undefined && patch.updatedAt < known.updatedAt) {
    const { updatedAt: _stale, preview: _stalePreview, ...rest } = patch;
    return { ...known, ...rest };
  }
  return { ...known, ...patch };
}
