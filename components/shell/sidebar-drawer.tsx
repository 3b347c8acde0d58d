'use client';

import * as Dialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import type { ReactNode } from 'react';

/** The sidebar on narrow screens: a modal drawer from the left (focus kept inside, Escape closes). */
export function SidebarDrawer({ open, onOpenChange, children }: { open: boolean; onOpenChange(open: boolean): void; children: ReactNode }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 md:hidden" />
        <Dialog.Content
          aria-describedby={undefined}
          className="fixed inset-y-0 left-0 z-40 flex w-72 max-w-[85vw] flex-col border-r border-neutral-200 bg-neutral-50 shadow-xl focus:outline-none md:hidden dark:border-neutral-800 dark:bg-neutral-900"
        >
          <Dialog.Title className="sr-only">Sidebar</Dialog.Title>
          <Dialog.Close
            aria-label="Close sidebar"
            className="absolute right-2 top-3 z-10 rounded-md p-2 text-neutral-500 hover:bg-neutral-200 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800"
          >
            <X size={16} aria-hidden />
          </Dialog.Close>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
