'use client';

import { Tags } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { DialogFrame } from '@/components/ui/dialog-frame';
import { TextField } from '@/components/ui/text-field';
import type { SessionRow } from '@/components/sessions/session-types';
import { useOrganiseActions } from './use-organise-actions';

/** "Tag selected": one tag added to (or taken off) every selected session of the Chats page. */
export function BulkTagButton({ rows, onDone }: { rows: SessionRow[]; onDone(): void }) {
  const actions = useOrganiseActions();
  const [open, setOpen] = useState(false);
  const [remove, setRemove] = useState(false);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('tag') ?? '').trim().toLowerCase();
    if (!name) return;
    setOpen(false);
    onDone();
    void actions.bulkTags(rows, remove ? [] : [name], remove ? [name] : []);
  };
  return (
    <DialogFrame
      open={open}
      onOpenChange={setOpen}
      trigger={
        <Button variant="secondary" aria-label="Tag selected" title="Tag selected" className="px-2 py-1 text-xs" disabled={rows.length === 0}>
          <Tags size={14} aria-hidden />
          <span className="hidden lg:inline">Tag selected</span>
        </Button>
      }
      title="Tag selected sessions"
      description={`${rows.length} ${rows.length === 1 ? 'session' : 'sessions'}`}
      onSubmit={submit}
      submit={{ label: remove ? 'Remove tag' : 'Add tag' }}
    >
      <TextField label="Tag" name="tag" required maxLength={40} pattern="[^\s,]+" title="no spaces or commas" autoComplete="off" />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={remove} onChange={(event) => setRemove(event.target.checked)} className="size-4 accent-blue-600" />
        Take it off instead
      </label>
    </DialogFrame>
  );
}
