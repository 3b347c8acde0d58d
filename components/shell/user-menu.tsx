'use client';

import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { CircleUser } from 'lucide-react';
import Link from 'next/link';
import { signOutAndForget } from '@/components/auth/sign-out';

const ITEM =
  'flex cursor-default select-none items-center rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-neutral-100 dark:data-[highlighted]:bg-neutral-800';

/** The account menu on narrow screens, where the header has no room for the links and the email. */
export function UserMenu({ email, admin }: { email: string; admin: boolean }) {
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger
        aria-label="Account menu"
        className="rounded-md p-2 text-neutral-600 hover:bg-neutral-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-neutral-400 dark:hover:bg-neutral-800"
      >
        <CircleUser size={16} aria-hidden />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" className="z-50 min-w-52 rounded-md border border-neutral-200 bg-white p-1 shadow-lg dark:border-neutral-800 dark:bg-neutral-900">
          <DropdownMenu.Label className="truncate px-2 py-1.5 text-xs text-neutral-500">{email}</DropdownMenu.Label>
          <DropdownMenu.Separator className="my-1 h-px bg-neutral-200 dark:bg-neutral-800" />
          <DropdownMenu.Item asChild className={ITEM}>
            <Link href="/usage">Usage</Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={ITEM}>
            <Link href="/import">Import</Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={ITEM}>
            <Link href="/settings">Settings</Link>
          </DropdownMenu.Item>
          {admin ? (
            <DropdownMenu.Item asChild className={ITEM}>
              <Link href="/admin">Admin</Link>
            </DropdownMenu.Item>
          ) : null}
          <DropdownMenu.Separator className="my-1 h-px bg-neutral-200 dark:bg-neutral-800" />
          <DropdownMenu.Item className={ITEM} onSelect={() => void signOutAndForget()}>
            Sign out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
