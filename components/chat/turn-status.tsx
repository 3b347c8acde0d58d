'use client';

import { AlertTriangle, Loader2, OctagonX, RotateCcw } from 'lucide-react';

/** The error as the end of a sentence: no doubled full stop. */
function asClause(error: string): string {
  return error.replace(/[.\s]+$/, '');
}

/**
 * How the last turn ended when that needs saying: running, failed (why, in a sentence, and a
 * Retry that answers again from where it stopped), or stopped.
 */
export function TurnStatus({
  status,
  running,
  error,
  interruption = null,
  onRetry,
  retrying = false,
  retryLabel = 'Retry',
}: {
  status: string;
  running: boolean;
  error: string | null;
  interruption?: { reason: 'stopped' | 'idle'; note: string } | null;
  onRetry?: () => void;
  retrying?: boolean;
  /** what the Retry says: in an agent's session, who answers ("Continue in web chat with <model>") */
  retryLabel?: string;
}) {
  if (running) {
    return (
      <p role="status" className="flex items-center gap-2 text-sm text-neutral-600 dark:text-neutral-400">
        <Loader2 size={16} aria-hidden className="animate-spin" />
        The assistant is answering…
      </p>
    );
  }
  if (status === 'failed') {
    return (
      <div role="status" aria-label="Turn failed" className="flex items-start gap-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
        <AlertTriangle size={16} aria-hidden className="mt-0.5 shrink-0" />
        <p className="min-w-0 flex-1 break-words">
          {error ? `The model could not answer: ${asClause(error)}.` : 'The last turn did not finish: the server stopped or the model did not answer.'} Your message is kept.
        </p>
        {onRetry ? (
          <button
            type="button"
            onClick={onRetry}
            disabled={retrying}
            className="inline-flex shrink-0 items-center gap-1 rounded-md border border-red-300 bg-white px-2 py-1 text-xs font-medium text-red-900 hover:bg-red-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:opacity-50 dark:border-red-700 dark:bg-red-900 dark:text-red-50 dark:hover:bg-red-800"
          >
            <RotateCcw size={14} aria-hidden />
            {retryLabel}
          </button>
        ) : null}
      </div>
    );
  }
  if (status === 'cancelled') {
    return (
      <p role="status" className="flex items-center gap-2 text-sm text-neutral-600 dark:text-neutral-400">
        <OctagonX size={16} aria-hidden />
        {interruption?.reason === 'idle'
          ? `${interruption.note} What arrived before is kept.`
          : 'Stopped. What arrived before is kept.'}
      </p>
    );
  }
  return null;
}

