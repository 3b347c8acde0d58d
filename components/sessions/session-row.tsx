'use client';

import * as Checkbox from '@radix-ui/react-checkbox';
import { Check, Link2, Loader2, Pin } from 'lucide-react';
import { useSharedSessions } from '@/components/share/use-shared-sessions';
import Link from 'next/link';
import { memo } from 'react';
import { cn } from '@/components/ui/cn';
import { writerLine } from './agent-label';
import { MachineName } from './machine-name';
import { displayTitle } from './display-title';
import { RelativeTime } from './relative-time';
import { useSessionListControls } from './session-list-context';
import { SessionMenu } from './session-menu';
import { SessionTitleField } from './session-title-field';
import { TagChips } from '@/components/organise/tag-chips';
import type { SessionRow as Row } from './session-types';

/** Three lines: the title and when, a preview of the conversation, the project and agent. */
export const ROW_HEIGHT = 68;

interface Props {
  row: Row;
  active: boolean;
  /** position in the list, for moving through it from the keyboard */
  index: number;
}

/**
 * A session in the sidebar or the Chats page: a link named by its displayed title, with Unread
 * and Running markers and when it was last written inside it, a preview line and its project and agent under it; the row menu from "⋯" or right-click.
 */
export const SessionRowItem = memo(function SessionRowItem({ row, active, index }: Props) {
  const { actions, renamingId, stopRename, selection } = useSessionListControls();
  const title = displayTitle(row);
  // The preview is the newest message; an untitled row already shows it as its title.
  const previewLine = (row.preview ?? '').trim() === title ? '' : (row.preview ?? '');
  const renaming = renamingId === row.id;
  const running = row.status === 'running';
  const writer = writerLine(row);
  const shared = useSharedSessions().shared.has(row.id);

  return (
    <SessionMenu row={row} title={title} kind="context">
      <div
        data-session-row={row.id}
        className={cn(
          'group flex h-[68px] items-center gap-2 rounded-md px-2 text-sm',
          active ? 'bg-neutral-200/70 dark:bg-neutral-800' : 'hover:bg-neutral-100 dark:hover:bg-neutral-800/60',
        )}
      >
        {selection ? (
          <Checkbox.Root
            aria-label={`Select ${title}`}
            checked={selection.has(row.id)}
            onCheckedChange={(on) => selection.toggle(row, on === true)}
            className="flex size-4 shrink-0 items-center justify-center rounded border border-neutral-400 bg-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 data-[state=checked]:border-blue-600 data-[state=checked]:bg-blue-600 dark:border-neutral-600 dark:bg-neutral-900"
          >
            <Checkbox.Indicator>
              <Check size={12} className="text-white" aria-hidden />
            </Checkbox.Indicator>
          </Checkbox.Root>
        ) : null}
        {renaming ? (
          <SessionTitleField
            initial={row.title || title}
            onSave={(next, byKey) => {
              stopRename(byKey);
              void actions.rename(row, next);
            }}
            onCancel={stopRename}
          />
        ) : (
          <Link
            href={`/sessions/${encodeURIComponent(row.id)}`}
            prefetch={false}
            aria-label={title}
            aria-current={active ? 'page' : undefined}
            data-row-index={index}
            className="flex min-w-0 flex-1 flex-col justify-center self-stretch rounded focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-blue-600"
          >
            <span className="flex min-w-0 items-center gap-1.5">
              {row.unread ? <span role="img" aria-label="Unread" className="size-2 shrink-0 rounded-full bg-blue-600 dark:bg-blue-400" /> : null}
              <span className={cn('truncate', row.unread ? 'font-semibold' : 'font-medium')}>{title}</span>
              {running ? (
                <span role="img" aria-label="Running" className="shrink-0 text-blue-600 dark:text-blue-400">
                  <Loader2 size={14} aria-hidden className="animate-spin" />
                </span>
              ) : null}
              {row.pinned ? <Pin size={12} aria-hidden className="shrink-0 text-neutral-400" /> : null}
              {shared ? (
                <span role="img" aria-label="Shared" title="Shared: a link opens it, read-only" className="shrink-0 text-emerald-600 dark:text-emerald-400">
                  <Link2 size={12} aria-hidden />
                </span>
              ) : null}
              <RelativeTime ms={row.updatedAt} className="ml-auto shrink-0 pl-1 text-xs font-normal text-neutral-500 dark:text-neutral-400" />
            </span>
            {/* What the conversation is about: rows with the same title told apart. */}
            <span data-preview className="truncate text-xs text-neutral-700 dark:text-neutral-300">
              {previewLine || '\u00a0'}
            </span>
            <span className="flex min-w-0 items-center gap-1.5 text-xs text-neutral-500 dark:text-neutral-400">
              <TagChips tags={row.tags} state={row.state} className="shrink-0 max-w-[60%]" />
              <span className="truncate">
              {row.project}
              {writer ? <span data-agent={row.source}>{` · ${writer}`}</span> : null}
              <MachineName machine={row.machine} />
              {row.archived ? ' · archived' : ''}
              {row.status === 'failed' ? ' · failed' : ''}
              </span>
            </span>
          </Link>
        )}
        {renaming ? null : <SessionMenu row={row} title={title} kind="button" />}
      </div>
    </SessionMenu>
  );
});
