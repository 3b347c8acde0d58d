'use client';

import { cn } from '@/components/ui/cn';
import type { OrganiseFilter } from './organise-filter';
import { CHIP, STATE_CHOICES } from './tag-look';
import { useTags } from './use-tags';

const SELECT =
  'rounded-md border border-neutral-300 bg-white px-2 py-1 text-sm text-neutral-900 focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600/30 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100';

/** The Chats page's "Filter by tag" group (a checkbox per tag, all of / any of, untagged) and its state filter. */
export function TagFilterPanel({ filter, onChange }: { filter: OrganiseFilter; onChange(next: OrganiseFilter): void }) {
  const { tags } = useTags();
  const names = [...new Set([...tags.map((tag) => tag.name), ...filter.tags])];
  const countOf = new Map(tags.map((tag) => [tag.name, tag.sessions]));
  const colourOf = new Map(tags.map((tag) => [tag.name, tag.colour]));
  const toggle = (name: string, on: boolean) =>
    onChange({ ...filter, tags: on ? [...filter.tags, name] : filter.tags.filter((tag) => tag !== name) });
  return (
    <div className="mt-3 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
      <fieldset role="group" aria-label="Filter by tag" className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1.5">
        <legend className="sr-only">Filter by tag</legend>
        <span aria-hidden className="text-neutral-600 dark:text-neutral-400">Tags</span>
        {names.length === 0 ? <span className="text-xs text-neutral-500">none yet</span> : null}
        {names.map((name) => (
          <label key={name} className="flex items-center gap-1.5">
            <input type="checkbox" aria-label={name} checked={filter.tags.includes(name)} onChange={(event) => toggle(name, event.target.checked)} className="size-4 accent-blue-600" />
            <span aria-hidden className={cn('rounded px-1.5 text-xs', CHIP[colourOf.get(name) ?? 'gray'])}>
              {name}
            </span>
            <span aria-hidden className="text-xs text-neutral-500">{countOf.get(name) ?? 0}</span>
          </label>
        ))}
        <label className="flex items-center gap-1.5">
          <input type="checkbox" checked={filter.untagged} onChange={(event) => onChange({ ...filter, untagged: event.target.checked })} className="size-4 accent-blue-600" />
          Untagged
        </label>
        <label className="flex items-center gap-1.5 text-neutral-600 dark:text-neutral-400">
          Match
          <select aria-label="Match" value={filter.tagMode} onChange={(event) => onChange({ ...filter, tagMode: event.target.value === 'any' ? 'any' : 'all' })} className={SELECT}>
            <option value="all">All of the tags</option>
            <option value="any">Any of the tags</option>
          </select>
        </label>
      </fieldset>
      <label className="flex items-center gap-1.5 text-neutral-600 dark:text-neutral-400">
        State
        <select
          aria-label="State"
          value={filter.state ?? ''}
          onChange={(event) => onChange({ ...filter, state: (event.target.value || null) as OrganiseFilter['state'] })}
          className={SELECT}
        >
          <option value="">Any state</option>
          {STATE_CHOICES.map(({ value, label }) => (
            <option key={label} value={value ?? 'none'}>
              {value === null ? 'No state' : label}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
