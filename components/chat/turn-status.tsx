'use client';

import { AlertTriangle, Loader2, OctagonX } from 'lucide-react';

/** How the last turn ended when that needs saying: running, failed (with why), or stopped (and by what, when it was ended from outside). */
export function TurnStatus({
  status,
  running,
  error,
  interruption = null,
}: {
  status: string;
  running: boolean;
  error: string | null;
  interruption?: { reason: 'stopped' | 'idle'; note: string } | null;
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
      <p role="status" aria-label="Turn failed" className="flex items-start gap-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
        <AlertTriangle size={16} aria-hidden className="mt-0.5 shrink-0" />
        <span>
          The last turn failed{error ? `: ${error}` : ' (the server stopped or the model did not answer)'}. Your message is kept; send again or retry.
        </span>
      </p>
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

