import type { ReactNode } from 'react';
import { TRPCReactProvider } from '@/components/providers/trpc-react-provider';
import './globals.css';

export const metadata = { title: 'Entity Memory' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-white text-neutral-900 dark:bg-neutral-950 dark:text-neutral-100">
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
