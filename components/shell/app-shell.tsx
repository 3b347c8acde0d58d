'use client';

import { usePathname } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import { AppHeader } from './app-header';
import { KeyboardShortcuts } from './keyboard-shortcuts';
import { ShortcutsDialog } from './shortcuts-dialog';
import { Sidebar } from './sidebar';
import { SidebarDrawer } from './sidebar-drawer';

/**
 * The signed-in frame (DESIGN §7): the sidebar on the left (a drawer on narrow screens), the
 * header and the page's scrollable <main> on the right.
 */
export function AppShell({ email, admin, children }: { email: string; admin: boolean; children: ReactNode }) {
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const pathname = usePathname() ?? '';
  useEffect(() => setDrawerOpen(false), [pathname]);

  return (
    <div className="flex h-dvh overflow-hidden">
      <aside className="hidden w-72 shrink-0 border-r border-neutral-200 bg-neutral-50 md:flex md:flex-col dark:border-neutral-800 dark:bg-neutral-900">
        <Sidebar />
      </aside>
      <SidebarDrawer open={drawerOpen} onOpenChange={setDrawerOpen}>
        <Sidebar />
      </SidebarDrawer>
      <div className="flex min-w-0 flex-1 flex-col">
        <AppHeader email={email} admin={admin} onOpenSidebar={() => setDrawerOpen(true)} onShowShortcuts={() => setShortcutsOpen(true)} />
        <main id="main" className="min-h-0 flex-1 overflow-y-auto">
          {children}
        </main>
      </div>
      <KeyboardShortcuts onShowShortcuts={() => setShortcutsOpen(true)} />
      <ShortcutsDialog open={shortcutsOpen} onOpenChange={setShortcutsOpen} />
    </div>
  );
}
