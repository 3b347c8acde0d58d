import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { Toaster } from 'sonner';
import { ThemeProvider } from '@/components/providers/theme-provider';
import { TRPCReactProvider } from '@/components/providers/trpc-react-provider';
import './globals.css';

export const metadata = { title: 'Entity Memory' };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const nonce = (await headers()).get('x-nonce') ?? undefined;
  return (
    // next-themes sets the class on <html> before React hydrates.
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen bg-white text-neutral-900 antialiased dark:bg-neutral-950 dark:text-neutral-100">
        <ThemeProvider nonce={nonce}>
          <TRPCReactProvider>
            {children}
            <Toaster richColors closeButton position="bottom-right" />
          </TRPCReactProvider>
        </ThemeProvider>
      </body>
    </html>
  );
}
