import { Wrench } from 'lucide-react';
import { toolSubject } from './tool-subject';
import type { ToolCallMessage } from './types';

/** What a result shows before "Show all"; and the most a page ever carries of one. */
const PREVIEW_CHARS = 800;
const MAX_CHARS = 50_000;

function pretty(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

function Block({ label, text }: { label: string; text: string }) {
  const preview = text.slice(0, PREVIEW_CHARS);
  const rest = text.slice(PREVIEW_CHARS, MAX_CHARS);
  const cut = text.length - PREVIEW_CHARS - rest.length;
  const pre = 'overflow-x-auto whitespace-pre-wrap break-words rounded bg-white p-2 font-mono text-xs dark:bg-neutral-950';
  return (
    <div className="mt-2">
      <div className="mb-1 text-xs font-medium text-neutral-500 dark:text-neutral-400">{label}</div>
      {rest === '' ? (
        <pre className={pre}>{text || '(empty)'}</pre>
      ) : (
        // Long results fold: the start shows, "Show all" opens the rest (no script needed).
        <details className="group/long">
          <summary className="cursor-pointer list-none">
            <pre className={pre}>
              {preview}
              <span className="group-open/long:hidden">…</span>
            </pre>
            <span className="mt-1 inline-block text-xs text-blue-600 underline group-open/long:hidden dark:text-blue-400">
              Show all ({text.length.toLocaleString('en')} characters)
            </span>
          </summary>
          <pre className={`${pre} -mt-2 rounded-t-none pt-0`}>
            {rest}
            {cut > 0 ? `\n… ${cut.toLocaleString('en')} more characters not shown` : ''}
          </pre>
        </details>
      )}
    </div>
  );
}

/** One tool call under the assistant message that made it: folded, with its input and result. */
export function ToolCall({ call }: { call: Pick<ToolCallMessage, 'name' | 'input' | 'content'> }) {
  const input = pretty(call.input);
  const subject = toolSubject(call.input);
  return (
    <details className="rounded-md border border-neutral-200 bg-neutral-50 text-sm dark:border-neutral-800 dark:bg-neutral-900">
      <summary className="flex cursor-pointer items-center gap-2 px-3 py-1.5 text-neutral-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-neutral-300">
        <Wrench aria-hidden size={16} className="shrink-0" />
        <span className="min-w-0 truncate">
          Tool call: <span className="font-mono">{call.name || 'tool'}</span>
          {subject ? (
            <>
              {' '}
              <span className="font-mono text-neutral-500 dark:text-neutral-400" title={subject}>
                {subject}
              </span>
            </>
          ) : null}
        </span>
      </summary>
      <div className="border-t border-neutral-200 px-3 pb-3 dark:border-neutral-800">
        {input ? <Block label="Input" text={input} /> : null}
        <Block label="Result" text={pretty(call.content)} />
      </div>
    </details>
  );
}

/** A message's tool calls, one under another; nothing when it made none. */
export function ToolCalls({ calls }: { calls: ReadonlyArray<Pick<ToolCallMessage, 'id' | 'name' | 'input' | 'content'>> }) {
  if (calls.length === 0) return null;
  return (
    <div className="mt-3 space-y-2">
      {calls.map((call) => (
        <ToolCall key={call.id} call={call} />
      ))}
    </div>
  );
}
