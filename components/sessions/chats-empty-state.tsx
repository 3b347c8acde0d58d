import Link from 'next/link';
import type { SessionScope } from './session-types';

/** What to do when a Chats list is empty: write a first session, or say that nothing matched. */
export function ChatsEmptyState({ scope, q, origin }: { scope: SessionScope; q: string; origin: string }) {
  if (q.trim()) {
    return (
      <p className="px-2 py-8 text-center text-sm text-neutral-600 dark:text-neutral-400">
        No {scope === 'all' ? '' : `${scope} `}sessions match “{q.trim()}”. Try other words, or look in{' '}
        {scope === 'all' ? 'another spelling' : 'All'}.
      </p>
    );
  }
  if (scope === 'archived') {
    return (
      <p className="px-2 py-8 text-center text-sm text-neutral-600 dark:text-neutral-400">
        No archived sessions. Archive a session from its menu (⋯) to keep it out of the sidebar without deleting it.
      </p>
    );
  }
  const create = `curl -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
  -d '{"id":"my-first-session","title":"My first session"}' ${origin}/api/trpc/session.create`;
  const append = `curl -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
  -d '{"sessionId":"my-first-session","message":{"role":"user","content":"Hello"}}' \\
  ${origin}/api/trpc/message.append`;
  return (
    <div className="mx-auto max-w-2xl space-y-4 px-2 py-8 text-sm">
      <h2 className="text-base font-semibold">No sessions yet</h2>
      <p className="text-neutral-600 dark:text-neutral-400">
        Record your coding agent: every exchange of Claude Code or Codex becomes a session here, live.
      </p>
      {/* The way most newcomers come: the Connect card has the lines to paste and makes the token. */}
      <p>
        <Link
          href="/settings#connect-title"
          className="inline-flex items-center rounded-md bg-neutral-900 px-3 py-2 font-medium text-white hover:bg-neutral-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:bg-neutral-100 dark:text-neutral-900 dark:hover:bg-neutral-300"
        >
          Connect Claude Code / Codex
        </Link>
      </p>
      <p className="text-neutral-600 dark:text-neutral-400">
        Or start a{' '}
        <Link href="/" className="text-blue-700 underline dark:text-blue-400">
          new chat
        </Link>
        , or write a session from a script with an API token (made in{' '}
        <Link href="/settings" className="text-blue-700 underline dark:text-blue-400">
          Settings
        </Link>
        ):
      </p>
      {/* Wrapped, not scrolled: on a phone the whole command stays in view. */}
      <pre className="whitespace-pre-wrap rounded-md border border-neutral-200 bg-neutral-50 p-3 font-mono text-xs [overflow-wrap:anywhere] dark:border-neutral-800 dark:bg-neutral-900">
        {`export TOKEN=em_…\n${create}\n${append}`}
      </pre>
      <p className="text-neutral-600 dark:text-neutral-400">The session shows up here and in the sidebar as soon as the agent writes it.</p>
    </div>
  );
}
