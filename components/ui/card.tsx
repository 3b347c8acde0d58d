import type { ReactNode } from 'react';
import { cn } from './cn';

/** A panel of the settings, admin and sign-in pages. */
export function Card({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className={cn('rounded-lg border border-neutral-200 bg-white p-5 shadow-sm dark:border-neutral-800 dark:bg-neutral-900', className)}>
      {children}
    </div>
  );
}
