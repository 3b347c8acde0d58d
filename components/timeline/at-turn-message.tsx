import type { RouterOutputs } from '@/trpc/types';
import { LocalTime } from '@/components/session/local-time';

type Message = RouterOutputs['timeline']['at']['messages'][number];

/** One message of the read-only view, as plain text (nothing in it is ever run or rendered as HTML). */
export function AtTurnMessage({ message }: { message: Message }) {
  const role = message.role === 'user' ? 'User' : 'Assistant';
  const fork = message.siblings.length > 1 ? message.siblings.indexOf(message.id) + 1 : 0;
  return (
    <article
      aria-label={role}
      className={`rounded-md border p-3 ${message.role === 'user' ? 'border-blue-200 bg-blue-50 dark:border-blue-900 dark:bg-blue-950/40' : 'border-neutral-200 bg-white dark:border-neutral-800 dark:bg-neutral-950'}`}
    >
      <header className="mb-1 flex flex-wrap items-baseline gap-2 text-xs text-neutral-500 dark:text-neutral-400">
        <span className="font-semibold text-neutral-800 dark:text-neutral-200">{role}</span>
        <LocalTime ms={message.createdAt} />
        {fork > 0 ? <span>Branch {fork} of {message.siblings.length}</span> : null}
      </header>
      <p className="whitespace-pre-wrap break-words text-sm">{message.content}</p>
      {message.toolCalls.length > 0 ? (
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-neutral-600 dark:text-neutral-400">
            {message.toolCalls.length === 1 ? '1 tool call' : `${message.toolCalls.length} tool calls`}
          </summary>
          <ul className="mt-1 space-y-1">
            {message.toolCalls.map((call) => (
              <li key={call.id} className="rounded bg-neutral-100 p-2 dark:bg-neutral-900">
                <span className="font-mono font-medium">{call.name || 'tool'}</span>
                <pre className="mt-1 whitespace-pre-wrap break-words font-mono">{call.content}</pre>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </article>
  );
}
