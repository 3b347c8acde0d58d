'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import type { RouterOutputs } from '@/trpc/types';
import { useTRPC } from '@/trpc/client';
import { RetentionFields, submitWith } from './retention-fields';
import { daysFromField, describeRetention, fieldFromDays, TRASH_KEEP_DAYS } from './retention-words';

type Settings = RouterOutputs['retention']['settings'];

/**
 * Settings → Retention (DESIGN §17): off unless chosen. The user follows the instance default the
 * admin set, or makes their own choice, which always wins (off included).
 */
export function RetentionSetting({ initial }: { initial: Settings }) {
  const trpc = useTRPC();
  const save = useMutation(trpc.retention.setOwn.mutationOptions());
  const [settings, setSettings] = useState(initial);
  const [ownChoice, setOwnChoice] = useState(initial.own !== null);
  const [fields, setFields] = useState({ archive: fieldFromDays(initial.own?.archiveAfterDays), trash: fieldFromDays(initial.own?.deleteArchivedAfterDays) });
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});

  async function submit() {
    setMessage({});
    const own = ownChoice ? { archiveAfterDays: daysFromField(fields.archive), deleteArchivedAfterDays: daysFromField(fields.trash) } : null;
    try {
      const next = await save.mutateAsync({ own });
      setSettings(next);
      setMessage({ success: `Saved. ${describeRetention(next.effective.policy)}` });
    } catch (failure) {
      setMessage({ error: (failure as Error).message });
    }
  }

  return (
    <form
      className="space-y-3"
      onSubmit={submitWith(submit)}
    >
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        Off unless you (or the admin, for everyone) choose it. Archiving only hides a session from the list; it stays readable and searchable. A
        session in the{' '}
        <Link href="/trash" className="underline">
          Trash
        </Link>{' '}
        is out of the list and search, restorable whole for {TRASH_KEEP_DAYS} days, then deleted for good. Your own choice always wins over the
        instance default.
      </p>
      <p className="text-sm">
        <span className="font-medium">Now:</span> {describeRetention(settings.effective.policy)}{' '}
        <span className="text-neutral-600 dark:text-neutral-400">({settings.effective.from === 'user' ? 'your own choice' : 'the instance default'})</span>
      </p>
      <fieldset className="space-y-1">
        <legend className="sr-only">Whose retention applies</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" name="retention-choice" checked={!ownChoice} onChange={() => setOwnChoice(false)} className="size-4" />
          Use the instance default ({describeRetention(settings.instance)})
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" name="retention-choice" checked={ownChoice} onChange={() => setOwnChoice(true)} className="size-4" />
          Choose my own
        </label>
      </fieldset>
      {ownChoice ? <RetentionFields value={fields} onChange={setFields} disabled={save.isPending} /> : null}
      <Button type="submit" disabled={save.isPending}>
        Save retention
      </Button>
      <FormMessage error={message.error} success={message.success} />
    </form>
  );
}
