'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { NotebookPen } from 'lucide-react';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { MarkdownBody } from '@/components/markdown/markdown-body';
import { PlainTextBody } from '@/components/markdown/plain-text-body';
import { Button } from '@/components/ui/button';
import { useTRPC } from '@/trpc/client';

/**
 * A message's note (DESIGN §16): shown beside it as the region "Note", edited in place from "Add
 * note" / "Edit note", kept by the server as a git note on the turn commit. Its Markdown is rendered
 * by the server as a message's is (sanitised; raw HTML shown as text), so nothing in it runs. Live
 * from note_changed in every tab.
 */
export function MessageNote({ sessionId, messageId }: { sessionId: string; messageId: string }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const listKey = trpc.note.list.queryKey({ id: sessionId });
  const notes = useQuery({ ...trpc.note.list.queryOptions({ id: sessionId }), staleTime: 60_000 });
  const note = notes.data?.find((each) => each.messageId === messageId) ?? null;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const fieldId = useId();
  const refresh = () => void client.invalidateQueries({ queryKey: listKey });
  const save = useMutation(trpc.note.set.mutationOptions({ onSuccess: () => (setEditing(false), refresh()), onError: (error) => toast.error(`Could not save the note: ${error.message}`) }));
  const remove = useMutation(trpc.note.delete.mutationOptions({ onSuccess: () => (setEditing(false), refresh()), onError: (error) => toast.error(`Could not delete the note: ${error.message}`) }));
  useLiveEvents((event) => {
    if (event.type === 'note_changed' && event.data.sessionId === sessionId) refresh();
  });

  if (editing) {
    return (
      <form
        className="mt-2 space-y-2"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate({ id: sessionId, messageId, text: draft });
        }}
      >
        <label htmlFor={fieldId} className="block text-xs font-medium text-neutral-600 dark:text-neutral-400">
          Note (Markdown)
        </label>
        <textarea
          id={fieldId}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          rows={4}
          autoFocus
          className="block w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600/30 dark:border-neutral-700 dark:bg-neutral-900"
        />
        <div className="flex gap-2">
          <Button type="submit" className="px-2 py-1 text-xs" disabled={draft.trim() === '' || save.isPending}>
            Save note
          </Button>
          <Button variant="secondary" className="px-2 py-1 text-xs" onClick={() => setEditing(false)}>
            Cancel
          </Button>
          {note ? (
            <Button variant="danger" className="ml-auto px-2 py-1 text-xs" disabled={remove.isPending} onClick={() => remove.mutate({ id: sessionId, messageId })}>
              Delete note
            </Button>
          ) : null}
        </div>
      </form>
    );
  }
  return (
    <>
      {note ? (
        <section role="region" aria-label="Note" className="mt-2 rounded-md border-l-4 border-amber-400 bg-amber-50 px-3 py-2 text-sm dark:border-amber-600 dark:bg-amber-950/40">
          {'html' in note.rendered ? (
            <MarkdownBody html={note.rendered.html} className="break-words text-neutral-800 dark:text-neutral-200" />
          ) : (
            <PlainTextBody text={note.rendered.text} reason={note.rendered.plain} className="break-words" />
          )}
        </section>
      ) : null}
      <button
        type="button"
        onClick={() => {
          setDraft(note?.text ?? '');
          setEditing(true);
        }}
        className="mt-1 inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs text-neutral-500 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-neutral-400 dark:hover:bg-neutral-800 dark:hover:text-neutral-100"
      >
        <NotebookPen size={14} aria-hidden />
        {note ? 'Edit note' : 'Add note'}
      </button>
    </>
  );
}
