import { useId, type InputHTMLAttributes } from 'react';

type Props = InputHTMLAttributes<HTMLInputElement> & { label: string; /** a refusal of what was typed, shown under the field and tied to it */ error?: string | null };

/** A labelled input; the label is always visible and tied to the input, and so is an error. */
export function TextField({ label, className, error, ...input }: Props) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium text-neutral-700 dark:text-neutral-300">
        {label}
      </label>
      <input
        id={id}
        {...input}
        {...(error ? { 'aria-invalid': true, 'aria-describedby': errorId } : {})}
        className={`mt-1 block w-full rounded-md border bg-white px-3 py-2 text-sm shadow-sm focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600/30 dark:bg-neutral-900 ${error ? 'border-red-600 dark:border-red-500' : 'border-neutral-300 dark:border-neutral-700'}`}
      />
      {error ? (
        <p id={errorId} role="alert" className="mt-1 text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}
