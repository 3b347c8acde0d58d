'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Redo2, Undo2 } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useTRPC } from '@/trpc/client';

type FileEdits = 'applied' | 'undone' | null;

/**
 * Undo / redo of the agent's file edits of one turn (turn.undo / turn.redo), saying what it did
 * in words ("Removed hello.txt."), or why it was refused (a file changed since, the commit is no
 * longer HEAD…). Only the move there is something for is offered: Redo waits for an undo.
 */
export function TurnFileUndo({ sessionId, turn, fileEdits }: { sessionId: string; turn: number; fileEdits: FileEdits }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<FileEdits>(fileEdits);
  useEffect(() => setState(fileEdits), [fileEdits]);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const report = (next: FileEdits) => ({
    onSuccess: (result: { summary: string }) => {
      setState(next);
      setOutcome({ ok: true, text: result.summary });
      // The timeline's and the project page's marks follow.
      void queryClient.invalidateQueries({ queryKey: trpc.timeline.list.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.project.commits.pathKey() });
    },
    onError: (error: { message: string }) => setOutcome({ ok: false, text: error.message }),
  });
  const undo = useMutation(trpc.turn.undo.mutationOptions(report('undone')));
  const redo = useMutation(trpc.turn.redo.mutationOptions(report('applied')));
  const small =
    'inline-flex items-center gap-1 rounded-md border border-neutral-300 px-2 py-1 text-xs hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-50 dark:border-neutral-700 dark:hover:bg-neutral-800';
  const busy = undo.isPending || redo.isPending;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button type="button" className={small} disabled={busy || state === 'undone'} onClick={() => undo.mutate({ sessionId, turn })}>
        <Undo2 size={16} aria-hidden />
        Undo file edits of turn {turn}
      </button>
      <button
        type="button"
        className={small}
        disabled={busy || state !== 'undone'}
        title={state !== 'undone' ? 'Nothing to redo: undo first' : undefined}
        onClick={() => redo.mutate({ sessionId, turn })}
      >
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
