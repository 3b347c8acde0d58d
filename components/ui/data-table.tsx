import type { ReactNode } from 'react';
import { cn } from './cn';

/**
 * A bordered table of figures: a caption for screen readers, one header row of column names, the
 * rows as children. `frameClassName` sets how the frame scrolls (a capped height, or sideways only).
 */
export function DataTable({ caption, columns, frameClassName, children }: { caption: string; columns: readonly string[]; frameClassName?: string; children: ReactNode }) {
  return (
    <div className={cn('overflow-x-auto rounded-md border border-neutral-200 dark:border-neutral-800', frameClassName)}>
      <table className="w-full min-w-max text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-neutral-50 text-xs uppercase text-neutral-600 dark:bg-neutral-900 dark:text-neutral-400">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className="px-3 py-2 font-medium">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">{children}</tbody>
      </table>
    </div>
  );
}
