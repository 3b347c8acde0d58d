'use client';

import { Archive, Wrench } from 'lucide-react';
import Link from 'next/link';
import { displayTitle } from '@/components/sessions/display-title';
import { CatchingUpNote } from './catching-up-note';
import { HitSnippet } from './hit-snippet';
import { hitHref, type SearchScope } from './types';
import { useMessageSearch } from './use-message-search';

/**
 * The Chats page's full-text results beside its title matches (DESIGN §7): a heading "Messages"
 * and a link per message hit, to the session opened at that message. Title hits are left to the
 * session list next to it.
 */
export function MessageHits({ text, scope }: { text: string; scope: SearchScope }) {
  const search = useMessageSearch(text, { scope, limit: 30, delayMs: 0 });
  if (!search.q) return null;
  const hits = (search.data?.hits ?? []).filter((hit) => hit.kind !== 'title');
  return (
    <section aria-labelledby="message-hits-heading" className="flex min-h-0 flex-col gap-2 lg:w-96 lg:shrink-0">
      <h2 id="message-hits-heading" className="text-sm font-semibold text-neutral-700 dark:text-neutral-300">
        Messages
      </h2>
      <CatchingUpNote status={search.data?.status} />
      {search.isError ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          Search failed: {search.error.message}
        </p>
      ) : hits.length === 0 ? (
        <p className="text-sm text-neutral-500">{search.isPending || !search.settled ? 'Searching messages…' : `No message contains “${search.q}”.`}</p>
      ) : (
        <ul className="max-h-64 space-y-1 overflow-y-auto lg:max-h-none lg:flex-1">
          {hits.map((hit) => (
            <li key={`${hit.sessionId}:${hit.messageId}:${hit.kind}`}>
              <Link
                href={hitHref(hit)}
                className="block rounded-md px-2 py-1.5 text-sm hover:bg-neutral-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800"
              >
                <span className="flex items-center gap-1.5 text-xs font-medium text-neutral-600 dark:text-neutral-400">
                  <span className="truncate">{displayTitle(hit)}</span>
                  {hit.kind === 'tool' ? (
                    <span className="inline-flex shrink-0 items-center gap-0.5 rounded bg-neutral-200 px-1 text-[10px] uppercase tracking-wide dark:bg-neutral-700">
                      <Wrench size={10} aria-hidden /> tool
                    </span>
                  ) : null}
                  {hit.archived ? (
                    <span className="inline-flex shrink-0 items-center gap-0.5 rounded bg-neutral-200 px-1 text-[10px] uppercase tracking-wide dark:bg-neutral-700">
                      <Archive size={10} aria-hidden /> archived
                    </span>
                  ) : null}
                </span>
                <span className="mt-0.5 line-clamp-2 text-neutral-800 dark:text-neutral-200">
                  <HitSnippet snippet={hit.snippet} />
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
