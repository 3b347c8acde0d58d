'use client';

import * as Checkbox from '@radix-ui/react-checkbox';
import * as Dialog from '@radix-ui/react-dialog';
import { Check } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { DialogPanel } from '@/components/ui/dialog-panel';
import { cn } from '@/components/ui/cn';
import { TextField } from '@/components/ui/text-field';
import type { SessionRow } from '@/components/sessions/session-types';
import { CHIP } from './tag-look';
import { useOrganiseActions } from './use-organise-actions';
import { useTags } from './use-tags';

/**
 * "Edit tags" (DESIGN §16): a checkbox per tag the user has, each change saved at once, and a
 * field for a new one. Opened from the row menu's "Tags…", the session header and the `t` key.
 */
export function EditTagsDialog({ row, title, open, onOpenChange }: { row: SessionRow; title: string; open: boolean; onOpenChange(open: boolean): void }) {
  const { tags: known, colourOf } = useTags();
  const actions = useOrganiseActions();
  const [held, setHeld] = useState<string[]>(row.tags);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const names = [...new Set([...known.map((tag) => tag.name), ...held])].sort();

  const change = async (add: string[], remove: string[]) => {
    setHeld((current) => [...new Set([...current.filter((tag) => !remove.includes(tag)), ...add])].sort());
    if (!(await actions.editTags(row, add, remove))) setHeld(row.tags);
  };
  const addNew = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = draft.trim().toLowerCase();
    if (name === '') return;
    if (/[\s,]/u.test(name) || [...name].length > 40) {
      setError('A tag has no spaces or commas and at most 40 characters.');
      return;
    }
    setError(null);
    setDraft('');
    void change([name], []);
  };

  return (
    <DialogPanel open={open} onOpenChange={onOpenChange} className="max-h-[85vh] w-[min(26rem,calc(100vw-2rem))]">
      <Dialog.Title className="text-base font-semibold">Edit tags</Dialog.Title>
      <Dialog.Description className="mt-1 truncate text-sm text-neutral-600 dark:text-neutral-400">{title}</Dialog.Description>
      {names.length > 0 ? (
        <ul aria-label="Tags" className="mt-4 flex flex-col gap-1.5">
          {names.map((name) => (
            <li key={name}>
              <label className="flex items-center gap-2 text-sm">
                <Checkbox.Root
                  aria-label={name}
                  checked={held.includes(name)}
                  onCheckedChange={(on) => void (on === true ? change([name], []) : change([], [name]))}
                  className="flex size-4 shrink-0 items-center justify-center rounded border border-neutral-400 bg-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 data-[state=checked]:border-blue-600 data-[state=checked]:bg-blue-600 dark:border-neutral-600 dark:bg-neutral-900"
                >
                  <Checkbox.Indicator>
                    <Check size={12} className="text-white" aria-hidden />
                  </Checkbox.Indicator>
                </Checkbox.Root>
                <span aria-hidden className={cn('rounded px-1.5 text-xs', CHIP[colourOf(name)])}>
                  {name}
                </span>
              </label>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mt-4 text-sm text-neutral-600 dark:text-neutral-400">No tags yet: name the first one.</p>
      )}
      <form onSubmit={addNew} className="mt-4 flex items-end gap-2">
        <TextField label="New tag" value={draft} onChange={(event) => setDraft(event.target.value)} maxLength={40} autoComplete="off" error={error} className="flex-1" />
        <Button type="submit" variant="secondary" disabled={draft.trim() === ''}>
          Add tag
        </Button>
      </form>
      <div className="mt-5 flex justify-end">
        <Dialog.Close asChild>
          <Button>Done</Button>
        </Dialog.Close>
      </div>
    </DialogPanel>
  );
}
