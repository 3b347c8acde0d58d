'use client';

import { Bookmark, FolderGit2, MessagesSquare, SquarePen, Trash2 } from 'lucide-react';
import Link from 'next/link';
import { SIDEBAR_PINNED, SIDEBAR_RECENT } from '@/components/sessions/list-inputs';
import { SessionList } from '@/components/sessions/session-list';
import { SidebarTags } from '@/components/organise/sidebar-tags';
import { SidebarViews } from '@/components/organise/sidebar-views';

const ACTION =
  'flex items-center gap-2 rounded-md px-2 py-1.5 text-sm hover:bg-neutral-200/70 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800';

/** The session list of every signed-in page: pinned first, then by day (DESIGN §7). */
export function Sidebar() {
  return (
    <nav aria-label="Sessions" className="flex h-full min-h-0 flex-col">
      <div className="flex h-14 shrink-0 items-center px-4">
        <Link href="/" className="rounded-md text-sm font-semibold focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600">
          Entity Memory
        </Link>
      </div>
      <div className="space-y-0.5 px-2 pb-2">
        <Link href="/" className={ACTION}>
          <SquarePen size={16} aria-hidden /> New chat
        </Link>
        <Link href="/chats" className={ACTION}>
          <MessagesSquare size={16} aria-hidden /> All chats
        </Link>
        <Link href="/projects" className={ACTION}>
          <FolderGit2 size={16} aria-hidden /> Projects
        </Link>
        <Link href="/bookmarks" className={ACTION}>
          <Bookmark size={16} aria-hidden /> Bookmarks
        </Link>
        <Link href="/trash" className={ACTION}>
          <Trash2 size={16} aria-hidden /> Trash
        </Link>
      </div>
      <SidebarViews />
      <SidebarTags />
      <SessionList
        input={SIDEBAR_RECENT}
        pinnedInput={SIDEBAR_PINNED}
        className="flex-1 px-2 pb-4"
        empty={
          <p className="px-2 py-3 text-sm text-neutral-600 dark:text-neutral-400">
            No sessions yet. Start a new chat, or let an agent write one with an API token from{' '}
            <Link href="/settings" className="text-blue-700 underline dark:text-blue-400">
              Settings
            </Link>
            .
          </p>
        }
      />
    </nav>
  );
}
