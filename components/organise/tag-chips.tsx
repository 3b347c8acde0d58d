'use client';

import { cn } from '@/components/ui/cn';
import { CHIP, STATE_CHIP, stateLabel, type SessionStateName } from './tag-look';
import { useTags } from './use-tags';

/** A session's state and tags, small, as a row and the session header show them. */
export function TagChips({ tags, state, className }: { tags: readonly string[]; state: SessionStateName | null; className?: string }) {
  const { colourOf } = useTags();
  if (tags.length === 0 && state === null) return null;
  return (
    <span className={cn('inline-flex min-w-0 items-center gap-1 overflow-hidden', className)}>
      {state ? (
        <span data-state={state} className={cn('shrink-0 text-xs', STATE_CHIP[state])}>
          {stateLabel(state)}
        </span>
      ) : null}
      {tags.length > 0 ? (
        <span role="list" aria-label="Tags" className="inline-flex min-w-0 gap-1 overflow-hidden">
          {tags.map((tag) => (
            <span key={tag} role="listitem" className={cn('shrink-0 rounded px-1.5 text-[11px] leading-4', CHIP[colourOf(tag)])}>
              {tag}
            </span>
          ))}
        </span>
      ) : null}
    </span>
  );
}
