import type { ReactNode } from 'react';

/**
 * A labelled list filter (the Chats page's Agent and Project): "" is "all", the value itself
 * otherwise; `children` are the <option>s after the "all" one.
 */
export function FilterSelect({ label, allLabel, value, onChange, children }: { label: string; allLabel: string; value: string | null; onChange: (value: string | null) => void; children: ReactNode }) {
  return (
    <label className="flex items-center gap-2 text-sm text-neutral-600 dark:text-neutral-400">
      {label}
      <select
        aria-label={label}
        value={value ?? ''}
        onChange={(event) => onChange(event.target.value || null)}
        className="max-w-48 rounded-md border border-neutral-300 bg-white px-2 py-2 text-sm text-neutral-900 focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600/30 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
      >
        <option value="">{allLabel}</option>
        {children}
      </select>
    </label>
  );
}
