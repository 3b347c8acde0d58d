'use client';

import { useQuery } from '@tanstack/react-query';
import { Command } from 'cmdk';
import { displayTitle } from '@/components/sessions/display-title';
import { useTRPC } from '@/trpc/client';
import { TagChips } from './tag-chips';

/** Whether a palette query names a tag or a state (`tag:<name>`, `state:<state>`, DESIGN §16). */
export function hasOrganiseWords(text: string): boolean {
  return /(^|\s)(tag|state):\S/iu.test(text);
}

/** The palette's text without those words: what the full-text search looks for. */
export function withoutOrganiseWords(text: string): string {
  return text.split(/\s+/u).filter((word) => !/^(tag|state):./iu.test(word)).join(' ');
}

/**
 * The sessions a `tag:`/`state:` query names, as palette options (session.list reads the words
 * itself, the rest as a title or preview filter); choosing one opens it.
 */
export function PaletteTagSessions({ text, onChoose }: { text: string; onChoose(sessionId: string): void }) {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.session.list.queryOptions({ scope: 'all', q: text.trim().slice(0, 500), limit: 20 }), retry: false });
  if (list.isError) {
    return (
      <p role="status" className="px-3 py-2 text-sm text-red-700 dark:text-red-400">
        {list.error.message}
      </p>
    );
  }
  const rows = list.data?.rows ?? [];
  return (
    <Command.Group heading="Sessions" className="text-xs text-neutral-500 [&_[cmdk-group-heading]]:px-3 [&_[cmdk-group-heading]]:py-1">
      {list.isSuccess && rows.length === 0 ? <p className="px-3 py-2 text-sm text-neutral-500">No session has these tags.</p> : null}
      {rows.map((row) => (
        <Command.Item
          key={row.id}
          value={`session:${row.id}`}
          onSelect={() => onChoose(row.id)}
          className="flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 text-sm text-neutral-900 data-[selected=true]:bg-neutral-100 dark:text-neutral-100 dark:data-[selected=true]:bg-neutral-800"
        >
          <span className="truncate">{displayTitle(row)}</span>
          <TagChips tags={row.tags} state={row.state} className="ml-auto" />
        </Command.Item>
      ))}
    </Command.Group>
  );
}
