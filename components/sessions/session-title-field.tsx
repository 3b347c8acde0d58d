'use client';

import { useEffect, useRef } from 'react';
import { cn } from '@/components/ui/cn';

/**
 * Inline rename: Enter saves, Escape cancels, leaving the field saves. An unchanged or empty title
 * saves nothing (an empty one would be refused: regenerate gives a model title instead).
 */
export function SessionTitleField({
  initial,
  onSave,
  onCancel,
  className,
}: {
  initial: string;
  /** `byKey`: Enter or Escape ended it (the focus goes back to where the rename started), not a click away */
  onSave(title: string, byKey: boolean): void;
  onCancel(byKey: boolean): void;
  className?: string;
}) {
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const finish = (save: boolean, byKey: boolean) => {
    if (done.current) return;
    done.current = true;
    const title = input.current?.value.trim() ?? '';
    if (save && title && title !== initial) onSave(title, byKey);
    else onCancel(byKey);
  };

  return (
    <input
      ref={input}
      aria-label="Session title"
      defaultValue={initial}
      maxLength={500}
      className={cn('min-w-0 flex-1 rounded border border-blue-600 bg-white px-2 py-1 text-sm outline-none ring-2 ring-blue-600/30 dark:bg-neutral-950', className)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          finish(true, true);
        } else if (event.key === 'Escape') {
          event.preventDefault();
          event.stopPropagation();
          finish(false, true);
        }
      }}
      onBlur={() => finish(true, false)}
    />
  );
}
