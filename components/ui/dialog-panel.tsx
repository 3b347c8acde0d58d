'use client';

import * as Dialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';
import { cn } from './cn';

/**
 * A centred Radix dialog panel over a dimmed page, its content the caller's (title, description,
 * body). `className` sizes it. Opened from a row menu, it sits inside the row in the React tree:
 * a right-click in it is not the row's.
 */
export function DialogPanel({ open, onOpenChange, className, children }: { open: boolean; onOpenChange(open: boolean): void; className?: string; children: ReactNode }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content
          onContextMenu={(event) => event.stopPropagation()}
          className={cn(
            'fixed left-1/2 top-1/2 z-50 -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg border border-neutral-200 bg-white p-5 shadow-xl focus:outline-none dark:border-neutral-800 dark:bg-neutral-900',
            className,
          )}
        >
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
