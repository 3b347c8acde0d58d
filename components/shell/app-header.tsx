import Link from 'next/link';
import { SignOutButton } from '@/components/auth/sign-out-button';

/** The signed-in shell's top bar: where you are, where you can go, who you are. */
export function AppHeader({ email, admin }: { email: string; admin: boolean }) {
  const link = 'rounded px-2 py-1 text-sm hover:bg-neutral-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800';
  return (
    <header className="border-b border-neutral-200 dark:border-neutral-800">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-3 px-4 py-3">
        <Link href="/" className="mr-4 font-semibold">
          Entity Memory
        </Link>
        <nav aria-label="Main" className="flex flex-1 items-center gap-1">
          <Link href="/settings" className={link}>
            Settings
          </Link>
          {admin ? (
            <Link href="/admin" className={link}>
              Admin
            </Link>
          ) : null}
        </nav>
        <span className="text-sm text-neutral-600 dark:text-neutral-400" data-testid="signed-in-as">
          {email}
        </span>
        <SignOutButton />
      </div>
    </header>
  );
}
