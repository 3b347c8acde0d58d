import Link from 'next/link';

/** Shown for a missing session id and for another user's, alike: nothing says which. */
export default function SessionNotFound() {
  return (
    <div className="mx-auto max-w-3xl px-4 py-16 text-center">
      <p className="text-sm font-medium text-neutral-500">404</p>
      <h1 className="mt-2 text-2xl font-semibold">Session not found</h1>
      <p className="mt-3 text-neutral-600 dark:text-neutral-400">This session does not exist, or it is not yours.</p>
      <div className="mt-6 flex justify-center gap-3 text-sm">
        <Link
          href="/chats"
          className="rounded-md bg-blue-600 px-3 py-2 font-medium text-white hover:bg-blue-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:ring-offset-2"
        >
          Back to your sessions
        </Link>
        <Link
          href="/"
          className="rounded-md border border-neutral-300 px-3 py-2 font-medium hover:bg-neutral-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:border-neutral-700 dark:hover:bg-neutral-900"
        >
          New chat
        </Link>
      </div>
    </div>
  );
}
