'use client';

import * as Dialog from '@radix-ui/react-dialog';
import { Command } from 'cmdk';
import { Archive, Search, Wrench } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { displayTitle } from '@/components/sessions/display-title';
import { cn } from '@/components/ui/cn';
import { CatchingUpNote } from './catching-up-note';
import { HitSnippet } from './hit-snippet';
import { hitHref, type SearchHit } from './types';
import { useMessageSearch } from './use-message-search';
import { hasOrganiseWords, PaletteTagSessions, withoutOrganiseWords } from '@/components/organise/palette-tag-sessions';

function hitKey(hit: SearchHit): string {
  return `${hit.sessionId}:${hit.messageId ?? 'title'}:${hit.kind}`;
}

/**
 * The command palette (DESIGN §7): Ctrl/Cmd+K anywhere, or the header's button, opens a dialog
 * "Search" with a combobox "Search messages"; each hit is an option naming its session, and
 * choosing one opens the session at that message.
 */
export function SearchPalette({ buttonClassName }: { buttonClassName?: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  // `tag:`/`state:` words list the sessions they name; the other words search the messages too
  const organised = open && hasOrganiseWords(text);
  const search = useMessageSearch(open ? (organised ? withoutOrganiseWords(text) : text) : '');

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setOpen((current) => !current);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  const choose = (hit: SearchHit) => {
    setOpen(false);
    router.push(hitHref(hit));
  };

  const hits = search.q ? (search.data?.hits ?? []) : [];
  let state: string | null = null;
  if (organised && !search.q) state = null;
  else if (!search.q) state = 'Type a word to search the titles and every message of your sessions, tool calls included.';
  else if (search.isError) state = `Search failed: ${search.error.message}`;
  else if (hits.length === 0) state = search.isPending || !search.settled ? 'Searching…' : `Nothing matches “${search.q}”.`;

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setText('');
      }}
    >
      <Dialog.Trigger aria-label="Open search" title="Search messages (Ctrl+K)" className={buttonClassName}>
        <Search size={16} aria-hidden />
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content
          aria-describedby={undefined}
          className="fixed left-1/2 top-[12vh] z-50 flex max-h-[76vh] w-[min(40rem,calc(100vw-1.5rem))] -translate-x-1/2 flex-col overflow-hidden rounded-lg border border-neutral-200 bg-white shadow-xl focus:outline-none dark:border-neutral-800 dark:bg-neutral-900"
        >
          <Dialog.Title className="sr-only">Search</Dialog.Title>
          <Command label="Search messages" shouldFilter={false} loop className="flex min-h-0 flex-col">
            <div className="flex items-center gap-2 border-b border-neutral-200 px-3 dark:border-neutral-800">
              <Search size={16} aria-hidden className="shrink-0 text-neutral-400" />
              <Command.Input
                value={text}
                onValueChange={setText}
                maxLength={500}
                placeholder="Search every message…"
                className="h-12 w-full bg-transparent text-sm placeholder:text-neutral-400 focus:outline-none"
              />
              <kbd className="hidden shrink-0 rounded border border-neutral-300 px-1.5 py-0.5 font-mono text-[10px] text-neutral-500 sm:inline dark:border-neutral-700">Esc</kbd>
            </div>
            <div className="space-y-2 px-3 pt-2 empty:hidden">
              <CatchingUpNote status={search.q ? search.data?.status : undefined} />
              {state ? (
                <p role="status" className={cn('py-6 text-center text-sm', search.isError ? 'text-red-700 dark:text-red-400' : 'text-neutral-500')}>
                  {state}
                </p>
              ) : null}
            </div>
            <Command.List className="min-h-0 overflow-y-auto p-2">
              {organised ? (
                <PaletteTagSessions
                  text={text}
                  onChoose={(id) => {
                    setOpen(false);
                    router.push(`/sessions/${encodeURIComponent(id)}`);
                  }}
                />
              ) : null}
              {hits.map((hit) => (
                <Command.Item
                  key={hitKey(hit)}
                  value={hitKey(hit)}
                  onSelect={() => choose(hit)}
                  className="cursor-pointer rounded-md px-3 py-2 text-sm data-[selected=true]:bg-neutral-100 dark:data-[selected=true]:bg-neutral-800"
                >
                  <span className="flex items-center gap-1.5 text-xs font-medium text-neutral-600 dark:text-neutral-400">
                    <span className="truncate">{displayTitle(hit)}</span>
                    {hit.kind === 'tool' ? (
                      <span className="inline-flex shrink-0 items-center gap-0.5 rounded bg-neutral-200 px-1 text-[10px] uppercase tracking-wide dark:bg-neutral-700">
                        <Wrench size={10} aria-hidden /> tool
                      </span>
                    ) : null}
                    {hit.kind === 'title' ? <span className="shrink-0 text-[10px] uppercase tracking-wide text-neutral-500">title</span> : null}
                    {hit.archived ? (
                      <span className="inline-flex shrink-0 items-center gap-0.5 rounded bg-neutral-200 px-1 text-[10px] uppercase tracking-wide dark:bg-neutral-700">
                        <Archive size={10} aria-hidden /> archived
                      </span>
                    ) : null}
                  </span>
                  <span className="mt-0.5 line-clamp-2 block text-neutral-800 dark:text-neutral-200">
                    <HitSnippet snippet={hit.snippet} />
                  </span>
                </Command.Item>
              ))}
            </Command.List>
          </Command>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
