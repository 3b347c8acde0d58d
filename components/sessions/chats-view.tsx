'use client';

import * as Checkbox from '@radix-ui/react-checkbox';
import * as Tabs from '@radix-ui/react-tabs';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Archive, ArchiveRestore, Check, Download, MailOpen, Minus, Search, Trash2 } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { MessageHits } from '@/components/search/message-hits';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useTRPC } from '@/trpc/client';
import { ChatsEmptyState } from './chats-empty-state';
import { EXPORT_ZIP_URL } from './export-urls';
import { chatsInput, SCOPES, type AgentFilter } from './list-inputs';
import { ProjectFilterSelect } from './project-filter-select';
import { FilterSelect } from '@/components/ui/filter-select';
import { SessionList } from './session-list';
import type { SessionRow, SessionScope } from './session-types';
import { useSessionActions } from './use-session-actions';
import { useSessionPages } from './use-session-pages';
import { BulkTagButton } from '@/components/organise/bulk-tag-button';
import { NO_ORGANISE_FILTER, organiseParams, type OrganiseFilter } from '@/components/organise/organise-filter';
import { TagFilterPanel } from '@/components/organise/tag-filter-panel';
import { SaveViewButton } from '@/components/organise/save-view-button';
import { viewFilterOf } from '@/components/organise/saved-view-filter';

const TAB_LABEL: Record<SessionScope, string> = { active: 'Active', archived: 'Archived', all: 'All' };
const SEARCH_DELAY_MS = 250;
/** session.bulk takes at most this many ids. */
const MAX_SELECTED = 1000;
const BULK = [
  { action: 'archive', label: 'Archive selected', Icon: Archive },
  { action: 'unarchive', label: 'Unarchive selected', Icon: ArchiveRestore },
  { action: 'markRead', label: 'Mark selected read', Icon: MailOpen },
  { action: 'delete', label: 'Delete selected', Icon: Trash2 },
] as const;

interface Props {
  initialScope: SessionScope;
  initialQuery: string;
  initialAgent?: AgentFilter | null;
  initialProject?: string | null;
  initialOrganise?: OrganiseFilter;
  origin: string;
  focusSearch: boolean;
}

/**
 * The Chats page: every session by scope and search, with multi-select and bulk actions. Scope
 * and search live in the URL (replaced in place, no server round trip); the other scopes of the
 * same search are prefetched, so switching tabs never shows an empty list.
 */
export function ChatsView({ initialScope, initialQuery, initialAgent = null, initialProject = null, initialOrganise = NO_ORGANISE_FILTER, origin, focusSearch }: Props) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const actions = useSessionActions();
  const [scope, setScope] = useState<SessionScope>(initialScope);
  const [text, setText] = useState(initialQuery);
  const [q, setQ] = useState(initialQuery);
  const [agent, setAgent] = useState<AgentFilter | null>(initialAgent);
  const [project, setProject] = useState<string | null>(initialProject);
  const [organise, setOrganise] = useState<OrganiseFilter>(initialOrganise);
  const agents = useQuery(trpc.session.agents.queryOptions({ scope: 'all' }));
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
    if (agent) params.set('agent', agent);
    if (project) params.set('project', project);
    organiseParams(organise, params);
    const query = params.toString();
    window.history.replaceState(null, '', query ? `/chats?${query}` : '/chats');
    setSelected(new Map());
  }, [scope, q, agent, project, organise]);

  useEffect(() => {
    for (const other of SCOPES) {
      if (other === scope) continue;
      void queryClient.prefetchInfiniteQuery({
        ...trpc.session.list.infiniteQueryOptions(chatsInput(other, q, agent, organise, project), { getNextPageParam: (page) => page.nextCursor }),
        staleTime: Infinity,
      });
    }
  }, [q, scope, agent, project, organise, queryClient, trpc]);

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

  // The list's own query (the same key): "Select all" takes every row of the tab and search.
  const list = useSessionPages(chatsInput(scope, q, agent, organise, project), true);
  const listed = useMemo(() => (list.data?.pages ?? []).flatMap((page) => page.rows), [list.data]);
  const [selectingAll, setSelectingAll] = useState(false);
  const allSelected = listed.length > 0 && !list.hasNextPage && listed.every((row) => selected.has(row.id));
  const selectAll = async (on: boolean) => {
    if (!on) return setSelected(new Map());
    setSelectingAll(true);
    try {
      // The rest of the pages first, up to what one bulk request takes.
      let result = list;
      let count = listed.length;
      while (result.hasNextPage && count < MAX_SELECTED) {
        const next = await result.fetchNextPage();
        result = next as typeof list;
        count = (next.data?.pages ?? []).reduce((sum, page) => sum + page.rows.length, 0);
        if (next.isError) break;
      }
      const all = (result.data?.pages ?? []).flatMap((page) => page.rows).slice(0, MAX_SELECTED);
      setSelected(new Map(all.map((row) => [row.id, row])));
    } finally {
      setSelectingAll(false);
    }
  };

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
        <div className="flex w-full flex-wrap items-center gap-2 sm:w-auto">
        <FilterSelect label="Agent" allLabel="All agents" value={agent} onChange={setAgent}>
          {(agents.data ?? []).map((each) => (
            <option key={each.agent} value={each.agent}>
              {each.agent} ({each.sessions})
            </option>
          ))}
          {agent && !(agents.data ?? []).some((each) => each.agent === agent) ? <option value={agent}>{agent} (0)</option> : null}
        </FilterSelect>
        <ProjectFilterSelect value={project} onChange={setProject} />
        <label className="relative block w-full sm:w-80">
          <span className="sr-only">Search sessions</span>
          <Search size={16} aria-hidden className="pointer-events-none absolute left-2.5 top-1/2 -translate-y-1/2 text-neutral-400" />
          <input
            ref={search}
            type="search"
            aria-label="Search sessions"
            placeholder="Search titles and messages"
            value={text}
            onChange={(event) => setText(event.target.value)}
            maxLength={500}
            className="w-full rounded-md border border-neutral-300 bg-white py-2 pl-8 pr-3 text-sm focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600/30 dark:border-neutral-700 dark:bg-neutral-900"
          />
        </label>
        <SaveViewButton filter={viewFilterOf(scope, q, agent, organise, project)} />
        </div>
      </div>
      <TagFilterPanel filter={organise} onChange={setOrganise} />
      <div className="mt-4 flex min-h-0 flex-1 flex-col gap-4 lg:flex-row">
      <Tabs.Root value={scope} onValueChange={(value) => setScope(value as SessionScope)} className="order-2 flex min-h-0 flex-1 flex-col lg:order-1">
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
            <label className="mr-1 flex items-center gap-1.5 text-xs text-neutral-600 dark:text-neutral-400">
              <Checkbox.Root
                aria-label="Select all"
                checked={allSelected ? true : none ? false : 'indeterminate'}
                disabled={listed.length === 0 || selectingAll}
                onCheckedChange={(on) => void selectAll(on === true)}
                className="flex size-4 shrink-0 items-center justify-center rounded border border-neutral-400 bg-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 disabled:opacity-50 data-[state=checked]:border-blue-600 data-[state=checked]:bg-blue-600 data-[state=indeterminate]:border-blue-600 data-[state=indeterminate]:bg-blue-600 dark:border-neutral-600 dark:bg-neutral-900"
              >
                <Checkbox.Indicator>
                  {allSelected ? <Check size={12} className="text-white" aria-hidden /> : <Minus size={12} className="text-white" aria-hidden />}
                </Checkbox.Indicator>
              </Checkbox.Root>
              <span aria-hidden>All</span>
            </label>
            <span className="mr-1 hidden text-xs text-neutral-500 sm:inline" aria-live="polite">
              {selectingAll ? 'Selecting…' : none ? 'Select sessions for bulk actions' : `${rows.length} selected`}
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
            <BulkTagButton rows={rows} onDone={() => setSelected(new Map())} />
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
              input={chatsInput(value, q, agent, organise, project)}
              keepPrevious
              selection={selection}
              className="flex-1 pt-1"
              empty={<ChatsEmptyState scope={value} q={q} origin={origin} />}
            />
          </Tabs.Content>
        ))}
      </Tabs.Root>
      <div className="order-1 lg:order-2 lg:flex lg:min-h-0">
        <MessageHits text={textOfQuery(q)} scope={scope} />
      </div>
      </div>
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

/** The words of a query the full-text search looks for: `tag:`/`state:` words filter the list only. */
function textOfQuery(q: string): string {
  return q.split(/\s+/u).filter((word) => !/^(tag|state):./iu.test(word)).join(' ');
}
