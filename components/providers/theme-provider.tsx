'use client';

import { ThemeProvider as NextThemesProvider } from 'next-themes';
import type { ReactNode } from 'react';

/** System theme by default; the choice is kept in localStorage and applied before first paint by an
 * inline script that carries the request's CSP nonce (no flash).
 */
export function ThemeProvider({ nonce, children }: { nonce: string | undefined; children: ReactNode }) {
  return (
    <NextThemesProvider attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange nonce={nonce}>
      {children}
    </NextThemesProvider>
  );
}
