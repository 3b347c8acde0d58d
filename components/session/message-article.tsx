import type { ReactNode } from 'react';
import { cn } from '@/components/ui/cn';
import { LocalTime } from './local-time';
import type { BranchMessage } from './types';

const NAMES = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool' } as const;

/**
 * One message of the branch: an article named by its role (DESIGN §7). User messages sit in a
 * tinted bubble, assistant replies on the page, system messages in a dashed box.
 */
export function MessageArticle({
  message,
  children,
  footer,
  current = false,
}: {
  message: Pick<BranchMessage, 'id' | 'role' | 'name' | 'createdAt'>;
  children: ReactNode;
  footer?: ReactNode;
  /** the message a search hit opened: marked aria-current and highlighted */
  current?: boolean;
}) {
  const name = NAMES[message.role];
  return (
    <article
      aria-label={name}
      aria-current={current ? 'true' : undefined}
      data-message-id={message.id}
      className={cn(
        current && 'scroll-mt-24 rounded-2xl px-4 py-3 ring-2 ring-amber-400 ring-offset-2 ring-offset-white dark:ring-amber-500/80 dark:ring-offset-neutral-950',
        message.role === 'user' && 'ml-auto max-w-[85%] rounded-2xl bg-neutral-100 px-4 py-3 dark:bg-neutral-800/70',
        message.role === 'system' && 'rounded-md border border-dashed border-amber-300 bg-amber-50/60 px-4 py-3 text-neutral-700 dark:border-amber-800 dark:bg-amber-950/30 dark:text-neutral-300',
      )}
    >
      <header className="mb-1 flex items-center gap-2 text-xs text-neutral-500 dark:text-neutral-400">
        <span className={cn('font-medium', message.role === 'system' && 'uppercase tracking-wide text-amber-700 dark:text-amber-400')}>{name}</span>
        {message.role === 'assistant' && message.name ? <span className="truncate font-mono">{message.name}</span> : null}
        <LocalTime ms={message.createdAt} className="ml-auto" />
      </header>
      {children}
      {footer}
    </article>
  );
}
