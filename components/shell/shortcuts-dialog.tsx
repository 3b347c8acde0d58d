'use client';

import * as Dialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';

export const SHORTCUTS: readonly [keys: string, what: string][] = [
  ['n', 'New chat'],
  ['/', 'Search sessions'],
  ['Ctrl+K or ⌘K', 'Search every message'],
  ['j or ↓', 'Next session in the list'],
  ['k or ↑', 'Previous session in the list'],
  ['Enter', 'Open the focused session'],
  ['r or F2', 'Rename the focused session'],
  ['Delete', 'Delete the focused session'],
  ['?', 'Show these shortcuts'],
];

/** The `?` overlay. */
export function ShortcutsDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-lg border border-neutral-200 bg-white p-5 shadow-xl focus:outline-none dark:border-neutral-800 dark:bg-neutral-900">
          <div className="flex items-center justify-between">
            <Dialog.Title className="text-base font-semibold">Keyboard shortcuts</Dialog.Title>
            <Dialog.Close
              aria-label="Close"
              className="rounded-md p-1 text-neutral-500 hover:bg-neutral-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800"
            >
              <X size={16} aria-hidden />
            </Dialog.Close>
          </div>
          <Dialog.Description className="mt-1 text-sm text-neutral-600 dark:text-neutral-400">
            They work anywhere except while typing in a field.
          </Dialog.Description>
          <dl className="mt-4 divide-y divide-neutral-200 text-sm dark:divide-neutral-800">
            {SHORTCUTS.map(([keys, what]) => (
              <div key={keys} className="flex items-center justify-between py-2">
                <dt className="text-neutral-700 dark:text-neutral-300">{what}</dt>
                <dd>
                  <kbd className="rounded border border-neutral-300 bg-neutral-50 px-1.5 py-0.5 font-mono text-xs dark:border-neutral-700 dark:bg-neutral-800">
                    {keys}
                  </kbd>
                </dd>
              </div>
            ))}
          </dl>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
