import type { RouterOutputs } from '@/trpc/types';
import { WordChangesText } from './word-changes-text';

type Comparison = RouterOutputs['session']['compare'];
type Row = Comparison['rows'][number];
type RowMessage = NonNullable<Row['a']>;

const ROLE_WORDS: Record<string, string> = { user: 'You', assistant: 'Assistant', system: 'System', tool: 'Tool' };

function Cell({ message, words, side }: { message: RowMessage | null; words: Row['words']; side: 'a' | 'b' }) {
  const branch = side === 'a' ? 'Branch A' : 'Branch B';
  if (!message) {
    return (
      <div aria-label={`${branch}: no message here`} className="rounded-md border border-dashed border-neutral-300 p-3 text-sm text-neutral-500 dark:border-neutral-700 dark:text-neutral-400">
        Nothing on this branch
      </div>
    );
  }
  const role = ROLE_WORDS[message.role] ?? message.role;
  return (
    <article aria-label={`${branch}: ${role}`} className="min-w-0 rounded-md border border-neutral-200 bg-white p-3 text-sm dark:border-neutral-800 dark:bg-neutral-900">
      <p className="mb-1 text-xs font-medium text-neutral-500 dark:text-neutral-400">
        {branch} · {role}
        {message.toolCalls.length > 0 ? ` · ${message.toolCalls.length === 1 ? '1 tool call' : `${message.toolCalls.length} tool calls`}` : ''}
      </p>
      {words ? <WordChangesText words={words} side={side} /> : <p className="whitespace-pre-wrap break-words">{message.content}</p>}
    </article>
  );
}

/** The two branches side by side, a row per aligned pair; below 768 px each row's cells stack, A above B. */
export function CompareRows({ rows }: { rows: Row[] }) {
  if (rows.length === 0) return <p className="text-sm text-neutral-600 dark:text-neutral-400">Neither branch has messages after the common one.</p>;
  return (
    <ol aria-label="Aligned messages" className="space-y-3">
      {rows.map((row, index) => (
        <li key={`${row.a?.id ?? ''}|${row.b?.id ?? ''}`} aria-label={`Pair ${index + 1}`} className="grid grid-cols-1 gap-3 md:grid-cols-2">
          <Cell message={row.a} words={row.words} side="a" />
          <Cell message={row.b} words={row.words} side="b" />
        </li>
      ))}
    </ol>
  );
}
