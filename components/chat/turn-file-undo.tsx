'use client';

import { useMutation } from '@tanstack/react-query';
import { Redo2, Undo2 } from 'lucide-react';
import { useState } from 'react';
import { useTRPC } from '@/trpc/client';

/**
 * Undo / redo of the agent's file edits of one turn (turn.undo / turn.redo), saying what was
 * restored, or why it was refused (a file changed since, the commit is no longer HEAD…).
 */
export function TurnFileUndo({ sessionId, turn }: { sessionId: string; turn: number }) {
  const trpc = useTRPC();
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const report = (verb: string) => ({
    onSuccess: (result: { paths: string[] }) =>
      setOutcome({ ok: true, text: result.paths.length > 0 ? `${verb}: ${result.paths.join(', ')}` : `${verb}: no files` }),
    onError: (error: { message: string }) => setOutcome({ ok: false, text: error.message }),
  });
  const undo = useMutation(trpc.turn.undo.mutationOptions(report('Restored')));
  const redo = useMutation(trpc.turn.redo.mutationOptions(report('Reapplied')));
  const small =
    'inline-flex items-center gap-1 rounded-md border border-neutral-300 px-2 py-1 text-xs hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:opacity-50 dark:border-neutral-700 dark:hover:bg-neutral-800';
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button type="button" className={small} disabled={undo.isPending} onClick={() => undo.mutate({ sessionId, turn })}>
        <Undo2 size={16} aria-hidden />
        Undo file edits of turn {turn}
      </button>
      <button type="button" className={small} disabled={redo.isPending} onClick={() => redo.mutate({ sessionId, turn })}>
        <Redo2 size={16} aria-hidden />
        Redo file edits of turn {turn}
      </button>
      {outcome ? (
        <span role="status" className={outcome.ok ? 'text-xs text-green-700 dark:text-green-400' : 'text-xs text-red-700 dark:text-red-400'}>
          {outcome.text}
        </span>
      ) : null}
    </div>
  );
}
