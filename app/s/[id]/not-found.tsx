import Link from 'next/link';

/** Every link that cannot be opened, alike: never made, revoked, expired, or sharing turned off. */
export default function SharedSessionNotFound() {
  return (
    <main className="mx-auto max-w-3xl px-4 py-16 text-center">
      <p className="text-sm font-medium text-neutral-500">404</p>
      <h1 className="mt-2 text-2xl font-semibold">Link not found</h1>
      <p className="mt-3 text-neutral-600 dark:text-neutral-400">This link does not exist, or it is no longer shared. Ask whoever sent it for a new one.</p>
      {/* Signed out, "/" leads to the sign-in page; signed in, to the reader's own chats. */}
      <p className="mt-6">
        <Link href="/" className="text-blue-700 underline underline-offset-2 dark:text-blue-400">
          Go to Entity Memory
        </Link>
      </p>
    </main>
  );
}
