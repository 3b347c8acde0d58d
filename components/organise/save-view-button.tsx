'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { BookmarkPlus } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import { DialogFrame } from '@/components/ui/dialog-frame';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import type { SavedViewFilter } from './saved-view-filter';

/**
 * "Save view" (DESIGN §16): the Chats page's current filter kept under a name, listed in the
 * sidebar's "Views". A refused name (empty, too long, taken) is said under the field; the dialog stays.
 */
export function SaveViewButton({ filter }: { filter: SavedViewFilter }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = useMutation(
    trpc.view.save.mutationOptions({
      onSuccess: (view) => {
        setOpen(false);
        toast.success(`Saved view “${view.name}”`);
        void client.invalidateQueries({ queryKey: trpc.view.list.queryKey() });
      },
      onError: (refusal) => setError(refusal.message),
    }),
  );
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '').trim();
    if (name === '' || [...name].length > 60) return setError('A name has 1 to 60 characters.');
    save.mutate({ name, filter });
  };
  return (
    <>
      <Button variant="secondary" className="px-2 py-2 text-sm" onClick={() => (setError(null), setOpen(true))}>
        <BookmarkPlus size={16} aria-hidden /> Save view
      </Button>
      <DialogFrame
        open={open}
        onOpenChange={setOpen}
        title="Save view"
        description="Keep this filter under a name; it is listed with its count under Views in the sidebar."
        onSubmit={submit}
        submit={{ label: 'Save', disabled: save.isPending }}
      >
        <TextField label="Name" name="name" maxLength={120} autoComplete="off" autoFocus error={error} />
      </DialogFrame>
    </>
  );
}
