'use client';

import { Keyboard, PanelLeft } from 'lucide-react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { SignOutButton } from '@/components/auth/sign-out-button';
import { SearchPalette } from '@/components/search/search-palette';
import { cn } from '@/components/ui/cn';
import { ThemeToggle } from './theme-toggle';
import { UserMenu } from './user-menu';

const ICON_BUTTON =
  'rounded-md p-2 text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-neutral-400 dark:hover:bg-neutral-800 dark:hover:text-neutral-100';

interface Props {
  email: string;
  admin: boolean;
  onOpenSidebar(): void;
  onShowShortcuts(): void;
}

/** The main column's top bar: the drawer button on narrow screens, the main links, theme, account. */
export function AppHeader({ email, admin, onOpenSidebar, onShowShortcuts }: Props) {
  const pathname = usePathname() ?? '';
  const link = (href: string) =>
    cn(
      'rounded-md px-2 py-1 text-sm hover:bg-neutral-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800',
      pathname.startsWith(href) && 'font-medium text-blue-700 dark:text-blue-400',
    );
  return (
    <header className="flex h-14 shrink-0 items-center gap-2 border-b border-neutral-200 bg-white px-3 dark:border-neutral-800 dark:bg-neutral-950">
      <button type="button" aria-label="Open sidebar" onClick={onOpenSidebar} className={cn(ICON_BUTTON, 'md:hidden')}>
        <PanelLeft size={16} aria-hidden />
      </button>
      <Link href="/" className="rounded-md px-1 text-sm font-semibold focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 md:hidden">
        Entity Memory
      </Link>
      <nav aria-label="Main" className="ml-auto hidden items-center gap-1 md:flex">
        <Link href="/chats" className={link('/chats')}>
          Chats
        </Link>
        <Link href="/projects" className={link('/projects')}>
          Projects
        </Link>
        <Link href="/usage" className={link('/usage')}>
          Usage
        </Link>
        <Link href="/import" className={link('/import')}>
          Import
        </Link>
        <Link href="/settings" className={link('/settings')}>
          Settings
        </Link>
        {admin ? (
          <Link href="/admin" className={link('/admin')}>
            Admin
          </Link>
        ) : null}
      </nav>
      <div className="ml-auto flex items-center gap-1 md:ml-2">
        <SearchPalette buttonClassName={ICON_BUTTON} />
        <button type="button" aria-label="Keyboard shortcuts" onClick={onShowShortcuts} className={cn(ICON_BUTTON, 'hidden md:inline-flex')}>
          <Keyboard size={16} aria-hidden />
        </button>
        <ThemeToggle />
        <span className="mx-1 hidden max-w-48 truncate text-sm text-neutral-600 lg:inline dark:text-neutral-400" data-testid="signed-in-as">
          {email}
        </span>
        <span className="hidden md:inline-flex">
          <SignOutButton />
        </span>
        <span className="md:hidden">
          <UserMenu email={email} admin={admin} />
        </span>
      </div>
    </header>
  );
}
