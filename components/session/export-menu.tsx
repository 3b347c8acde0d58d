'use client';

import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Download } from 'lucide-react';
import { EXPORT_ITEMS, exportUrl } from '@/components/sessions/export-urls';

const ITEM =
  'flex cursor-default select-none items-center gap-2 rounded px-2 py-1.5 outline-none data-[highlighted]:bg-neutral-100 dark:data-[highlighted]:bg-neutral-800';

/** The session page's "Export" menu: the same downloads as the row menu's. */
export function ExportMenu({ sessionId, className }: { sessionId: string; className: string }) {
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className={className}>
        <Download aria-hidden size={16} />
        Export
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="start"
          className="z-50 min-w-48 rounded-md border border-neutral-200 bg-white p-1 text-sm shadow-lg dark:border-neutral-800 dark:bg-neutral-900"
        >
          {EXPORT_ITEMS.map(({ format, label }) => (
            <DropdownMenu.Item key={format} asChild className={ITEM}>
              <a href={exportUrl(sessionId, format)} download>
                {label}
              </a>
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
