import type { ButtonHTMLAttributes } from 'react';
import { cn } from './cn';

type Props = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' };

const VARIANTS = {
  primary: 'bg-blue-600 text-white hover:bg-blue-700 disabled:opacity-60',
  secondary:
    'border border-neutral-300 bg-white text-neutral-900 hover:bg-neutral-50 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100 dark:hover:bg-neutral-800 disabled:opacity-50',
  danger: 'bg-red-600 text-white hover:bg-red-700 disabled:opacity-50',
} as const;

export function Button({ variant = 'primary', className = '', type = 'button', ...button }: Props) {
  return (
    <button
      type={type}
      {...button}
      className={cn(
        'inline-flex items-center justify-center gap-1.5 rounded-md px-3 py-2 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:ring-offset-2 disabled:cursor-not-allowed dark:focus-visible:ring-offset-neutral-950',
        VARIANTS[variant],
        className,
      )}
    />
  );
}
