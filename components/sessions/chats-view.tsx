'use client';

import * as Tabs from '@radix-ui/react-tabs';
import { useQueryClient } from '@tanstack/react-query';
import { Archive, ArchiveRestore, Download, MailOpen, Search, Trash2 } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useTRPC } from '@/trpc/client';
import { ChatsEmptyState } from './chats-empty-state';
import { EXPORT_ZIP_URL } from './export-urls';
import { chatsInput, SCOPES } from './list-inputs';
import { SessionList } from './session-list';
import type { SessionRow, SessionScope } from './session-types';
import { useSessionActions } from './use-session-actions';

const TAB_LABEL: Record<SessionScope, string> = { active: 'Active', archived: 'Archived', all: 'All' };
const SEARCH_DELAY_MS = 250;
const BULK = [
  { action: 'archive', label: 'Archive selected', Icon: Archive },
  { action: 'unarchive', label: 'Unarchive selected', Icon: ArchiveRestore },
  { action: 'markRead', label: 'Mark selected read', Icon: MailOpen },
  { action: 'delete', label: 'Delete selected', Icon: Trash2 },
] as const;

interface Props {
  initialScope: SessionScope;
  initialQuery: string;
  origin: string;
  focusSearch: boolean;
}

/**
 * The Chats page: every session by scope and search, with multi-select and bulk actions. Scope
 * and search live in the URL (replaced in place, no server round trip); the other scopes of the
 * same search are prefetched, so switching tabs never shows an empty list.
 */
export function ChatsView({ initialScope, initialQuery, origin, focusSearch }: Props) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const actions = useSessionActions();
  const [scope, setScope] = useState<SessionScope>(initialScope);
  const [text, setText] = useState(initialQuery);
  const [q, setQ] = useState(initialQuery);
  const [selected, setSelected] = useState<Map<string, SessionRow>>(() => new Map());
  const [confirmDelete, setConfirmDelete] = useState(false);
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (focusSearch) search.current?.focus();
  }, [focusSearch]);

  useEffect(() => {
    const timer = setTimeout(() => setQ(text.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);

  useEffect(() => {
    const params = new URLSearchParams();
    if (scope !== 'active') params.set('scope', scope);
    if (q) params.set('q', q);
    const query = params.toString();
    window.history.replaceState(null, '', query ? `/chats?${query}` : '/chats');
    setSelected(new Map());
  }, [scope, q]);

  useEffect(() => {
    for (const other of SCOPES) {
      if (other === scope) continue;
      void queryClient.prefetchInfiniteQuery({
        ...trpc.session.list.infiniteQueryOptions(chatsInput(other, q), { getNextPageParam: (page) => page.nextCursor }),
        staleTime: Infinity,
      });
    }
  }, [q, scope, queryClient, trpc]);

  const selection = useMemo(
    () => ({
      has: (id: string) => selected.has(id),
      toggle: (row: SessionRow, on: boolean) =>
        setSelected((current) => {
          const next = new Map(current);
          if (on) next.set(row.id, row);
          else next.delete(row.id);
          return next;
        }),
    }),
    [selected],
  );

  const rows = [...selected.values()];
  const none = rows.length === 0;
  const runBulk = (action: 'archive' | 'unarchive' | 'delete' | 'markRead') => {
    setSelected(new Map());
    void actions.bulk(rows, action);
  };

  return (
    <div className="mx-auto flex h-full max-w-5xl flex-col px-4 py-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Chats</h1>
        <label className="relative block w-full sm:w-80">
          <span className="sr-only">Search sessions</span>
          <Search size={16} aria-hidden className="pointer-events-none absolute left-2.5 top-1/2 -translate-y-1/2 text-neutral-400" />
          <input
            ref={search}
            type="search"
            aria-label="Search sessions"
            placeholder="Search titles and previews"
            value={text}
            onChange={(event) => setText(event.target.value)}
            maxLength={500}
            className="w-full rounded-md border border-neutral-300 bg-white py-2 pl-8 pr-3 text-sm focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600/30 dark:border-neutral-700 dark:bg-neutral-900"
          />
        </label>
      </div>
      <Tabs.Root value={scope} onValueChange={(value) => setScope(value as SessionScope)} className="mt-4 flex min-h-0 flex-1 flex-col">
        <div className="flex flex-wrap items-center justify-between gap-2 border-b border-neutral-200 dark:border-neutral-800">
          <Tabs.List aria-label="Scope" className="flex gap-1">
            {SCOPES.map((value) => (
              <Tabs.Trigger
                key={value}
                value={value}
                className="-mb-px border-b-2 border-transparent px-3 py-2 text-sm text-neutral-600 hover:text-neutral-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 data-[state=active]:border-blue-600 data-[state=active]:font-medium data-[state=active]:text-neutral-900 dark:text-neutral-400 dark:hover:text-neutral-100 dark:data-[state=active]:border-blue-400 dark:data-[state=active]:text-neutral-100"
              >
                {TAB_LABEL[value]}
              </Tabs.Trigger>
            ))}
          </Tabs.List>
          <div role="toolbar" aria-label="Selected sessions" className="flex items-center gap-1.5 py-1.5">
            <span className="mr-1 hidden text-xs text-neutral-500 sm:inline" aria-live="polite">
              {none ? 'Select sessions for bulk actions' : `${rows.length} selected`}
            </span>
            {BULK.map(({ action, label, Icon }) => (
              <Button
                key={action}
                variant={action === 'delete' ? 'danger' : 'secondary'}
                aria-label={label}
                title={label}
                className="px-2 py-1 text-xs"
                disabled={none}
                onClick={() => (action === 'delete' ? setConfirmDelete(true) : runBulk(action))}
              >
                <Icon size={14} aria-hidden />
                <span className="hidden lg:inline">{label}</span>
              </Button>
            ))}
            {/* A form post: any number of ids, and the zip arrives as a download of the page. */}
            <form method="post" action={EXPORT_ZIP_URL} className="contents">
              {rows.map((row) => (
                <input key={row.id} type="hidden" name="ids" value={row.id} />
              ))}
              <Button type="submit" variant="secondary" aria-label="Export selected" title="Export selected" className="px-2 py-1 text-xs" disabled={none}>
                <Download size={14} aria-hidden />
                <span className="hidden lg:inline">Export selected</span>
              </Button>
            </form>
          </div>
        </div>
        {SCOPES.map((value) => (
          <Tabs.Content key={value} value={value} className="flex min-h-0 flex-1 flex-col focus-visible:outline-none">
            <SessionList
              input={chatsInput(value, q)}
              keepPrevious
              selection={selection}
              className="flex-1 pt-1"
              empty={<ChatsEmptyState scope={value} q={q} origin={origin} />}
            />
          </Tabs.Content>
        ))}
      </Tabs.Root>
      <ConfirmDialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title={`Delete ${rows.length} ${rows.length === 1 ? 'session' : 'sessions'}?`}
        description="They and their whole history will be deleted. This cannot be undone."
        confirmLabel="Delete"
        onConfirm={() => {
          setConfirmDelete(false);
          runBulk('delete');
        }}
      />
    </div>
  );
}
