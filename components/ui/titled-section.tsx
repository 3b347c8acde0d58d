import type { ReactNode } from 'react';
import { cn } from './cn';

/** A page section named by its heading (`aria-labelledby`), so tests and screen readers find it as a region. */
export function TitledSection({ id, title, className, children }: { id: string; title: ReactNode; className?: string; children: ReactNode }) {
  return (
    <section className={cn('space-y-2', className)} aria-labelledby={id}>
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}
