'use client';

import * as ContextMenu from '@radix-ui/react-context-menu';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Archive, ArchiveRestore, FileJson, Share2, FileText, GitBranch, Mail, MailOpen, MoreHorizontal, Pencil, Pin, PinOff, Sparkles, Trash2, ListTree } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import { useRef, useState, type ComponentType, type ReactNode } from 'react';
import { ShareDialog } from '@/components/share/share-dialog';
import { EditTagsDialog } from '@/components/organise/edit-tags-dialog';
import { OrganiseMenuItems } from '@/components/organise/organise-menu-items';
import { useSharedSessions } from '@/components/share/use-shared-sessions';
import { cn } from '@/components/ui/cn';
import { EXPORT_ITEMS, exportUrl, type ExportFormat } from './export-urls';
import { downloadMarkdown } from './markdown-download';
import { useSessionListControls } from './session-list-context';
import type { SessionRow } from './session-types';

interface ItemProps {
  onSelect?: (event: Event) => void;
  asChild?: boolean;
  className?: string;
  children?: ReactNode;
}

const EXPORT_ICON: Record<ExportFormat, LucideIcon> = { md: FileText, json: FileJson, bundle: GitBranch, 'agent-trace': ListTree };

// At most the room Radix measured on the side it opens (dropdown or context menu): a long menu scrolls instead of running off the window.
const CONTENT =
  'z-50 max-h-[var(--radix-dropdown-menu-content-available-height,var(--radix-context-menu-content-available-height,100vh))] min-w-48 overflow-y-auto rounded-md border border-neutral-200 bg-white p-1 text-sm shadow-lg dark:border-neutral-800 dark:bg-neutral-900';
const ITEM =
  'flex cursor-default select-none items-center gap-2 rounded px-2 py-1.5 outline-none data-[highlighted]:bg-neutral-100 dark:data-[highlighted]:bg-neutral-800';

interface Props {
  row: SessionRow;
  title: string;
  /** `button`: the "⋯" button; `context`: right-click on `children` */
  kind: 'button' | 'context';
  children?: ReactNode;
  /** the "⋯" button's name and look when not a row's (the session header) */
  label?: string;
  triggerClassName?: string;
}

/**
 * One menu for a session row, opened from its "Options for <title>" button or by right-click
 * (DESIGN §7); the items are the same whichever opened it.
 */
export function SessionMenu({ row, title, kind, children, label, triggerClassName }: Props) {
  const { actions, startRename, requestDelete } = useSessionListControls();
  // Rename puts the focus in the title field: the menu must not take it back to its trigger.
  const keepFocus = useRef(false);
  const [sharing, setSharing] = useState(false);
  const [tagging, setTagging] = useState(false);
  const { mode } = useSharedSessions();
  const Item = (kind === 'button' ? DropdownMenu.Item : ContextMenu.Item) as ComponentType<ItemProps>;
  const Separator = (kind === 'button' ? DropdownMenu.Separator : ContextMenu.Separator) as ComponentType<{ className?: string }>;

  const items = (
    <>
      <Item
        className={ITEM}
        onSelect={() => {
          keepFocus.current = true;
          startRename(row.id, kind === 'button' ? 'menu' : 'link');
        }}
      >
        <Pencil size={16} aria-hidden /> Rename
      </Item>
      <Item className={ITEM} onSelect={() => void actions.regenerateTitle(row)}>
        <Sparkles size={16} aria-hidden /> Regenerate title
      </Item>
      <Item className={ITEM} onSelect={() => void actions.setPinned(row, !row.pinned)}>
        {row.pinned ? <PinOff size={16} aria-hidden /> : <Pin size={16} aria-hidden />} {row.pinned ? 'Unpin' : 'Pin'}
      </Item>
      <Item className={ITEM} onSelect={() => void actions.setUnread(row, !row.unread)}>
        {row.unread ? <MailOpen size={16} aria-hidden /> : <Mail size={16} aria-hidden />} {row.unread ? 'Mark as read' : 'Mark as unread'}
      </Item>
      <Item className={ITEM} onSelect={() => void actions.setArchived(row, !row.archived)}>
        {row.archived ? <ArchiveRestore size={16} aria-hidden /> : <Archive size={16} aria-hidden />} {row.archived ? 'Unarchive' : 'Archive'}
      </Item>
      <OrganiseMenuItems row={row} kind={kind} item={ITEM} content={CONTENT} onTags={() => {
        keepFocus.current = true;
        setTimeout(() => setTagging(true), 0);
      }} />
      <Separator className="my-1 h-px bg-neutral-200 dark:bg-neutral-800" />
      {mode === 'off' ? null : (
        <Item
          className={ITEM}
          onSelect={() => {
            keepFocus.current = true;
            // After the menu has closed: while open it keeps the focus inside itself.
            setTimeout(() => setSharing(true), 0);
          }}
        >
          <Share2 size={16} aria-hidden /> Share
        </Item>
      )}
      {EXPORT_ITEMS.map(({ format, label }) => {
        const Icon = EXPORT_ICON[format];
        // Markdown can be refused (too large): checked first, its message shown (markdown-download.ts).
        if (format === 'md') {
          return (
            <Item key={format} className={ITEM} onSelect={() => void downloadMarkdown(exportUrl(row.id, format))}>
              <Icon size={16} aria-hidden /> {label}
            </Item>
          );
        }
        return (
          // A plain download link: the server streams it, the browser saves it.
          <Item key={format} asChild className={ITEM}>
            <a href={exportUrl(row.id, format)} download>
              <Icon size={16} aria-hidden /> {label}
            </a>
          </Item>
        );
      })}
      <Separator className="my-1 h-px bg-neutral-200 dark:bg-neutral-800" />
      <Item className={cn(ITEM, 'text-red-700 dark:text-red-400')} onSelect={() => requestDelete(row)}>
        <Trash2 size={16} aria-hidden /> Delete
      </Item>
    </>
  );
  const onCloseAutoFocus = (event: Event) => {
    if (keepFocus.current) event.preventDefault();
    keepFocus.current = false;
  };

  const dialog = (
    <>
      {sharing ? <ShareDialog sessionId={row.id} title={title} open onOpenChange={setSharing} /> : null}
      {tagging ? <EditTagsDialog row={row} title={title} open onOpenChange={setTagging} /> : null}
    </>
  );
  if (kind === 'context') {
    return (
      <>
        <ContextMenu.Root>
          <ContextMenu.Trigger asChild>{children}</ContextMenu.Trigger>
          <ContextMenu.Portal>
            <ContextMenu.Content className={CONTENT} onCloseAutoFocus={onCloseAutoFocus}>
              {items}
            </ContextMenu.Content>
          </ContextMenu.Portal>
        </ContextMenu.Root>
        {dialog}
      </>
    );
  }
  return (
    <>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger
          aria-label={label ?? `Options for ${title}`}
          className={triggerClassName ?? "rounded p-1 text-neutral-500 opacity-0 hover:bg-neutral-200 hover:text-neutral-900 focus:opacity-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 group-hover:opacity-100 data-[state=open]:opacity-100 dark:hover:bg-neutral-700 dark:hover:text-neutral-100 [@media(hover:none)]:opacity-100"}
        >
          <MoreHorizontal size={16} aria-hidden />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content align="end" className={CONTENT} onCloseAutoFocus={onCloseAutoFocus}>
            {items}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      {dialog}
    </>
  );
}
