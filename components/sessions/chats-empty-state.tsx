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
        Start a{' '}
        <Link href="/" className="text-blue-700 underline dark:text-blue-400">
          new chat
        </Link>
        , or let an agent write one. Create an API token in{' '}
        <Link href="/settings" className="text-blue-700 underline dark:text-blue-400">
          Settings
        </Link>
        , then:
      </p>
      <pre className="overflow-x-auto rounded-md border border-neutral-200 bg-neutral-50 p-3 font-mono text-xs dark:border-neutral-800 dark:bg-neutral-900">
        {`export TOKEN=em_…\n${create}\n${append}`}
      </pre>
      <p className="text-neutral-600 dark:text-neutral-400">The session shows up here and in the sidebar as soon as the agent writes it.</p>
    </div>
  );
}
