'use client';

import { Moon, Sun } from 'lucide-react';
import { useTheme } from 'next-themes';

/** Light or dark; the choice is stored by next-themes and applied before the first paint. */
export function ThemeToggle() {
  const { resolvedTheme, setTheme } = useTheme();
  return (
    <button
      type="button"
      aria-label="Toggle dark mode"
      onClick={() => setTheme(resolvedTheme === 'dark' ? 'light' : 'dark')}
      className="rounded-md p-2 text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-neutral-400 dark:hover:bg-neutral-800 dark:hover:text-neutral-100"
    >
      {/* Both icons render; the class on <html> picks one, so the server's HTML is right in either theme. */}
      <Moon size={16} aria-hidden className="dark:hidden" />
      <Sun size={16} aria-hidden className="hidden dark:block" />
    </button>
  );
}
