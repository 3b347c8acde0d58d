'use client';

import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, Download } from 'lucide-react';
import { Fragment, useState } from 'react';
import { EXPORT_ITEMS, exportUrl, MARKDOWN_DEFAULTS, type MarkdownSwitches } from '@/components/sessions/export-urls';
import { downloadMarkdown } from '@/components/sessions/markdown-download';

const ITEM =
  'flex cursor-default select-none items-center gap-2 rounded px-2 py-1.5 outline-none data-[highlighted]:bg-neutral-100 dark:data-[highlighted]:bg-neutral-800';
const BOX =
  'flex size-4 shrink-0 items-center justify-center rounded border border-neutral-400 group-data-[state=checked]:border-blue-600 group-data-[state=checked]:bg-blue-600 group-data-[state=checked]:text-white dark:border-neutral-500 dark:group-data-[state=checked]:border-blue-500 dark:group-data-[state=checked]:bg-blue-500';

const SWITCHES: ReadonlyArray<{ key: keyof MarkdownSwitches; label: string }> = [
  { key: 'toolCalls', label: 'Include tool calls' },
  { key: 'reasoning', label: 'Include reasoning' },
];

/**
 * The session page's "Export" menu: the same downloads as the row menu's, and above the
 * Markdown one its two switches (DESIGN §10: tool calls on, reasoning off by default). A switch
 * keeps the menu open, so a choice and then "Export as Markdown" are one visit; the choice
 * lasts while the page does.
 */
export function ExportMenu({ sessionId, className }: { sessionId: string; className: string }) {
  const [switches, setSwitches] = useState<MarkdownSwitches>(MARKDOWN_DEFAULTS);
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className={className}>
        <Download aria-hidden size={16} />
        Export
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="start"
          className="z-50 min-w-56 rounded-md border border-neutral-200 bg-white p-1 text-sm shadow-lg dark:border-neutral-800 dark:bg-neutral-900"
        >
          {SWITCHES.map(({ key, label }) => (
            <DropdownMenu.CheckboxItem
              key={key}
              className={`group ${ITEM}`}
              checked={switches[key]}
              onCheckedChange={(checked) => setSwitches((current) => ({ ...current, [key]: checked === true }))}
              onSelect={(event) => event.preventDefault()}
            >
              <span aria-hidden className={BOX}>
                <DropdownMenu.ItemIndicator>
                  <Check size={12} strokeWidth={3} />
                </DropdownMenu.ItemIndicator>
              </span>
              {label}
            </DropdownMenu.CheckboxItem>
          ))}
          {EXPORT_ITEMS.map(({ format, label }) => (
            <Fragment key={format}>
              {/* the switches above are the Markdown's alone: a line under it says so */}
              {format === 'json' ? <DropdownMenu.Separator className="my-1 h-px bg-neutral-200 dark:bg-neutral-800" /> : null}
              {format === 'md' ? (
                // Checked first, so a refusal (too large) is shown, not a failed download (markdown-download.ts).
                <DropdownMenu.Item className={ITEM} onSelect={() => void downloadMarkdown(exportUrl(sessionId, format, switches))}>
                  {label}
                </DropdownMenu.Item>
              ) : (
                <DropdownMenu.Item asChild className={ITEM}>
                  <a href={exportUrl(sessionId, format, switches)} download>
                    {label}
                  </a>
                </DropdownMenu.Item>
              )}
            </Fragment>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
