'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import { RetentionFields, submitWith } from './retention-fields';
import { daysFromField, describeRetention, fieldFromDays, type RetentionPolicyValue } from './retention-words';

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Admin → Retention (DESIGN §17): the default for every user who has not chosen their own (a
 * user's own choice wins), and the sweep once, now, optionally as of a later date to see what
 * it will move (the Trash is purged by the real date only).
 */
export function InstanceRetentionSection({ initial }: { initial: RetentionPolicyValue }) {
  const trpc = useTRPC();
  const save = useMutation(trpc.retention.setInstance.mutationOptions());
  const apply = useMutation(trpc.retention.applyNow.mutationOptions());
  const [policy, setPolicy] = useState(initial);
  const [fields, setFields] = useState({ archive: fieldFromDays(initial.archiveAfterDays), trash: fieldFromDays(initial.deleteArchivedAfterDays) });
  const [asOf, setAsOf] = useState('');
  const [saved, setSaved] = useState<{ error?: string; success?: string }>({});
  const [swept, setSwept] = useState<{ error?: string; success?: string }>({});

  async function submit() {
    setSaved({});
    try {
      const next = await save.mutateAsync({ archiveAfterDays: daysFromField(fields.archive), deleteArchivedAfterDays: daysFromField(fields.trash) });
      setPolicy(next);
      setSaved({ success: `Saved. ${describeRetention(next)}` });
    } catch (failure) {
      setSaved({ error: (failure as Error).message });
    }
  }

  async function sweep() {
    setSwept({});
    const asOfMs = asOf === '' ? undefined : Date.parse(`${asOf}T12:00:00Z`);
    try {
      const summary = await apply.mutateAsync(asOfMs === undefined || Number.isNaN(asOfMs) ? {} : { asOf: asOfMs });
      setSwept({
        success: `Retention applied to ${count(summary.users, 'user')} as of ${asOfMs === undefined || Number.isNaN(asOfMs) ? 'now' : asOf}: ${count(summary.archived, 'session')} archived, ${summary.trashed} moved to the Trash, ${summary.purged} deleted from the Trash${summary.skipped ? `; ${count(summary.skipped, 'user')} skipped (being moved, or failed: see the server log)` : ''}.`,
      });
    } catch (failure) {
      setSwept({ error: (failure as Error).message });
    }
  }

  return (
    <div className="space-y-4">
      <form
        className="space-y-3"
        onSubmit={submitWith(submit)}
      >
        <p className="text-sm text-neutral-600 dark:text-neutral-400">
          The default for everyone who has not made their own choice in Settings; a user&apos;s own choice always wins, off included. Leave
          both empty to keep retention off. Now: {describeRetention(policy)}
        </p>
        <RetentionFields value={fields} onChange={setFields} disabled={save.isPending} />
        <Button type="submit" disabled={save.isPending}>
          Save default
        </Button>
        <FormMessage error={saved.error} success={saved.success} />
      </form>
      <div className="space-y-2 border-t border-neutral-200 pt-4 dark:border-neutral-800">
        <p className="text-sm text-neutral-600 dark:text-neutral-400">
          The sweep runs every hour. Run it now, or as of a later date to move now what that day&apos;s sweep would (the Trash itself is only
          emptied by the real date).
        </p>
        <div className="flex flex-wrap items-end gap-3">
          <TextField label="As of (optional)" type="date" value={asOf} onChange={(event) => setAsOf(event.target.value)} />
          <Button variant="secondary" disabled={apply.isPending} onClick={() => void sweep()}>
            Apply retention now
          </Button>
        </div>
        <FormMessage error={swept.error} success={swept.success} />
      </div>
    </div>
  );
}
