'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { usePathname, useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { cn } from '@/components/ui/cn';
import { useClock } from './clock-provider';
import { dayGroupOf, type DayGroup } from './day-groups';
import { displayTitle } from './display-title';
import { SessionListContext, type SessionListControls } from './session-list-context';
import { ROW_HEIGHT, SessionRowItem } from './session-row';
import type { SessionListInput, SessionRow } from './session-types';
import { useSessionActions } from './use-session-actions';
import { useSessionPages } from './use-session-pages';

const HEADING_HEIGHT = 32;
/** Keyboard commands sent to a list by the shell's shortcuts (see components/shell/keyboard-shortcuts.tsx). */
export const LIST_COMMAND_EVENT = 'sessions:command';
export type ListCommand = { command: 'move'; delta: number } | { command: 'rename' } | { command: 'delete' };

type Item = { kind: 'heading'; key: string; label: string } | { kind: 'row'; key: string; row: SessionRow };

interface Props {
  input: SessionListInput;
  /** listed first under "Pinned" (the sidebar) */
  pinnedInput?: SessionListInput;
  empty: ReactNode;
  selection?: SessionListControls['selection'];
  /** keep showing the previous rows while a new search loads */
  keepPrevious?: boolean;
  className?: string;
}

function rowsOf(pages: { rows: SessionRow[] }[] | undefined, seen: Set<string>): SessionRow[] {
  const out: SessionRow[] = [];
  for (const page of pages ?? []) {
    for (const row of page.rows) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      out.push(row);
    }
  }
  return out;
}

/**
 * A virtualised, cursor-paged list of sessions grouped Pinned / Today / Yesterday / Previous 7
 * days / Older: only the rows in view (and a few more) are in the DOM, however many are loaded,
 * and the next page is fetched as the end comes into view.
 */
export function SessionList({ input, pinnedInput, empty, selection, keepPrevious, className }: Props) {
  const pinned = useSessionPages(pinnedInput ?? null);
  const recent = useSessionPages(input, keepPrevious);
  const actions = useSessionActions();
  const { timeZone, now } = useClock();
  const pathname = usePathname() ?? '';
  const router = useRouter();
  const scrollRef = useRef<HTMLDivElement>(null);
  const [renamingId, setRenamingId] = useState<string | null>(null);
  const renameFrom = useRef<'menu' | 'link'>('link');
  const [deleting, setDeleting] = useState<SessionRow | null>(null);

  const items = useMemo(() => {
    const seen = new Set<string>();
    const out: Item[] = [];
    const pinnedRows = rowsOf(pinned.data?.pages, seen);
    if (pinnedRows.length > 0) out.push({ kind: 'heading', key: 'h:Pinned', label: 'Pinned' });
    for (const row of pinnedRows) out.push({ kind: 'row', key: row.id, row });
    // Until every pinned row is loaded, the others would show above pinned ones still to come.
    if (pinnedInput && pinned.hasNextPage) return out;
    let group: DayGroup | null = null;
    for (const row of rowsOf(recent.data?.pages, seen)) {
      // Rows come newest first: once one is Older, all after it are (and a calendar lookup per row
      // would cost more than the rest of this loop over tens of thousands of rows).
      const next: DayGroup = group === 'Older' ? group : dayGroupOf(row.updatedAt, now, timeZone);
      if (next !== group) out.push({ kind: 'heading', key: `h:${next}`, label: next });
      group = next;
      out.push({ kind: 'row', key: row.id, row });
    }
    return out;
  }, [pinned.data, pinned.hasNextPage, pinnedInput, recent.data, now, timeZone]);

  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => (items[index]?.kind === 'heading' ? HEADING_HEIGHT : ROW_HEIGHT),
    getItemKey: (index) => items[index]?.key ?? index,
    overscan: 8,
    // The server renders the first screen of rows with this size; the browser measures its own.
    initialRect: { width: 288, height: 900 },
  });
  const virtualItems = virtualizer.getVirtualItems();
  const lastIndex = virtualItems[virtualItems.length - 1]?.index ?? 0;

  const source = pinnedInput && pinned.hasNextPage ? pinned : recent;
  useEffect(() => {
    if (lastIndex >= items.length - 20 && source.hasNextPage && !source.isFetchingNextPage) void source.fetchNextPage();
  }, [lastIndex, items.length, source]);

  const focusItem = useCallback(
    (index: number) => {
      virtualizer.scrollToIndex(index, { align: 'auto' });
      let tries = 0;
      const attempt = () => {
        const link = scrollRef.current?.querySelector<HTMLElement>(`[data-row-index="${index}"]`);
        if (link) link.focus();
        else if (tries++ < 10) requestAnimationFrame(attempt);
      };
      requestAnimationFrame(attempt);
    },
    [virtualizer],
  );

  const focusedIndex = (): number => {
    const link = document.activeElement?.closest<HTMLElement>('[data-row-index]');
    if (link && scrollRef.current?.contains(link)) return Number(link.dataset.rowIndex);
    return items.findIndex((item) => item.kind === 'row' && pathname === `/sessions/${encodeURIComponent(item.row.id)}`);
  };

  const move = (delta: number) => {
    let index = focusedIndex();
    if (index < 0 && delta < 0) index = items.length;
    for (let next = index + delta; next >= 0 && next < items.length; next += delta) {
      if (items[next]?.kind === 'row') return focusItem(next);
    }
  };

  const runCommand = (command: ListCommand) => {
    if (command.command === 'move') return move(command.delta);
    const item = items[focusedIndex()];
    if (item?.kind !== 'row') return;
    if (command.command === 'rename') {
      renameFrom.current = 'link';
      setRenamingId(item.row.id);
    }
    else setDeleting(item.row);
  };
  const commandRef = useRef(runCommand);
  commandRef.current = runCommand;
  useEffect(() => {
    const element = scrollRef.current;
    const listener = (event: Event) => commandRef.current((event as CustomEvent<ListCommand>).detail);
    element?.addEventListener(LIST_COMMAND_EVENT, listener);
    return () => element?.removeEventListener(LIST_COMMAND_EVENT, listener);
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!(event.target as HTMLElement).matches('[data-row-index]')) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      move(event.key === 'ArrowDown' ? 1 : -1);
    }
  };

  const controls = useMemo<SessionListControls>(
    () => ({
      actions,
      renamingId,
      startRename: (id, from = 'link') => {
        renameFrom.current = from;
        setRenamingId(id);
      },
      stopRename: (restoreFocus = false) => {
        const id = renamingId;
        setRenamingId(null);
        if (!restoreFocus || !id) return;
        // Back where the rename started, once the row shows its link and menu button again.
        requestAnimationFrame(() => {
          const row = scrollRef.current?.querySelector(`[data-session-row="${CSS.escape(id)}"]`);
          const target = renameFrom.current === 'menu' ? row?.querySelector<HTMLElement>('button[aria-haspopup="menu"]') : row?.querySelector<HTMLElement>('[data-row-index]');
          target?.focus();
        });
      },
      requestDelete: setDeleting,
      selection,
    }),
    [actions, renamingId, selection],
  );

  const loaded = recent.data !== undefined && (!pinnedInput || pinned.data !== undefined);
  return (
    <SessionListContext.Provider value={controls}>
      <div ref={scrollRef} data-session-list="" onKeyDown={onKeyDown} className={cn('min-h-0 overflow-y-auto', className)}>
        {loaded && items.length === 0 ? empty : null}
        {!loaded ? <p className="px-3 py-2 text-sm text-neutral-500">Loading sessions…</p> : null}
        <div className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
          {virtualItems.map((virtual) => {
            const item = items[virtual.index]!;
            return (
              <div
                key={virtual.key}
                className="absolute left-0 top-0 w-full"
                style={{ height: virtual.size, transform: `translateY(${virtual.start}px)` }}
              >
                {item.kind === 'heading' ? (
                  <h2 className="px-2 pb-1 pt-3 text-xs font-medium text-neutral-500 dark:text-neutral-400">{item.label}</h2>
                ) : (
                  <SessionRowItem
                    row={item.row}
                    index={virtual.index}
                    active={pathname === `/sessions/${encodeURIComponent(item.row.id)}` || pathname.startsWith(`/sessions/${encodeURIComponent(item.row.id)}/`)}
                  />
                )}
              </div>
            );
          })}
        </div>
        {source.isFetchingNextPage ? <p className="px-3 py-2 text-xs text-neutral-500">Loading more…</p> : null}
      </div>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title="Delete this session?"
        description={deleting ? `“${displayTitle(deleting)}” and its whole history will be deleted. You can undo it for a few seconds.` : ''}
        confirmLabel="Delete"
        onConfirm={() => {
          const row = deleting;
          setDeleting(null);
          if (!row) return;
          if (pathname.startsWith(`/sessions/${encodeURIComponent(row.id)}`)) router.push('/');
          void actions.remove(row);
        }}
      />
    </SessionListContext.Provider>
  );
}
