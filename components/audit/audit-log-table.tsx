'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { DataTable } from '@/components/ui/data-table';
import { FilterSelect } from '@/components/ui/filter-select';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type AuditPage = RouterOutputs['audit']['list'];
type AuditAction = AuditPage['entries'][number]['action'];
type AuditResult = AuditPage['entries'][number]['result'];

const PAGE_SIZE = 50;
const COLUMNS = ['When', 'User', 'IP', 'Action', 'Target', 'Result'] as const;

interface Filters {
  action: AuditAction | null;
  actor: string | null;
  result: AuditResult | null;
}

/**
 * The audit log (DESIGN §17) as a table, newest first, 50 a page: the Admin page's (`mine` false:
 * everyone's, filterable by user) and Settings' "Your activity" (`mine`: the caller's own). The
 * CSV link downloads what the filters select, every page of it.
 */
export function AuditLogTable({ initial, actions, users, mine, caption }: { initial: AuditPage; actions: readonly AuditAction[]; users?: { id: string; email: string }[]; mine: boolean; caption: string }) {
  const trpc = useTRPC();
  const [filters, setFilters] = useState<Filters>({ action: null, actor: null, result: null });
  // The `before` of each page shown so far: Older pushes the next one, Newer goes back.
  const [pages, setPages] = useState<number[]>([]);
  const before = pages.at(-1);
  const input = {
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(filters.result ? { result: filters.result } : {}),
    ...(mine ? { mine: true } : {}),
    limit: PAGE_SIZE,
    ...(before !== undefined ? { before } : {}),
  };
  const isFirstUnfiltered = before === undefined && !filters.action && !filters.actor && !filters.result;
  const page = useQuery(trpc.audit.list.queryOptions(input, { initialData: isFirstUnfiltered ? initial : undefined, placeholderData: keepPreviousData }));
  const change = (next: Partial<Filters>) => {
    setFilters({ ...filters, ...next });
    setPages([]);
  };
  const csvQuery = new URLSearchParams(Object.entries(input).filter(([name]) => name !== 'limit' && name !== 'before').map(([name, value]) => [name, value === true ? '1' : String(value)]));
  const entries = page.data?.entries ?? [];

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <FilterSelect label="Action" allLabel="All actions" value={filters.action} onChange={(value) => change({ action: value as AuditAction | null })}>
          {actions.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </FilterSelect>
        {users ? (
          <FilterSelect label="User" allLabel="All users" value={filters.actor} onChange={(value) => change({ actor: value })}>
            {users.map((user) => (
              <option key={user.id} value={user.id}>
                {user.email}
              </option>
            ))}
          </FilterSelect>
        ) : null}
        <FilterSelect label="Result" allLabel="All results" value={filters.result} onChange={(value) => change({ result: value as AuditResult | null })}>
          <option value="success">success</option>
          <option value="failure">failure</option>
        </FilterSelect>
        <a href={`/api/audit.csv?${csvQuery.toString()}`} download className="text-sm text-blue-700 underline dark:text-blue-400">
          Download CSV
        </a>
      </div>
      {page.error ? (
        <p role="status" className="text-sm text-red-700 dark:text-red-400">
          {page.error.message}
        </p>
      ) : null}
      <DataTable caption={caption} columns={COLUMNS} frameClassName="max-h-[32rem] overflow-y-auto">
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td className="px-3 py-2 font-mono text-xs">
              <time dateTime={new Date(entry.at).toISOString()}>{new Date(entry.at).toISOString()}</time>
            </td>
            <td className="px-3 py-2">{entry.actorName}</td>
            <td className="px-3 py-2 font-mono text-xs">{entry.ip ?? ''}</td>
            <td className="px-3 py-2">{entry.action}</td>
            <td className="max-w-xs break-all px-3 py-2 font-mono text-xs">{entry.target}</td>
            <td className={entry.result === 'failure' ? 'px-3 py-2 text-red-700 dark:text-red-400' : 'px-3 py-2'}>{entry.result}</td>
          </tr>
        ))}
      </DataTable>
      {entries.length === 0 ? <p className="text-sm text-neutral-500 dark:text-neutral-400">Nothing recorded{isFirstUnfiltered ? ' yet' : ' that matches'}.</p> : null}
      <div className="flex gap-2">
        <Button variant="secondary" disabled={pages.length === 0} onClick={() => setPages(pages.slice(0, -1))}>
          Newer
        </Button>
        <Button variant="secondary" disabled={page.data?.next == null} onClick={() => page.data?.next != null && setPages([...pages, page.data.next])}>
          Older
        </Button>
      </div>
    </div>
  );
}
