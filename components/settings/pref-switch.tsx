'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { FormMessage } from '@/components/ui/form-message';
import { useTRPC } from '@/trpc/client';

/** The user's on/off preferences (`user.setPrefs`) that Settings shows as one switch each. */
export type SwitchPref = 'redactSecrets' | 'titleAgentSessions';

/**
 * One per-user switch of Settings, saved as soon as it changes: the box shows what the server
 * saved (put back when saving fails), a line says what now happens, and `children` explain it.
 */
export function PrefSwitch({ pref, initial, label, saved, children }: { pref: SwitchPref; initial: boolean; label: string; saved: { on: string; off: string }; children: ReactNode }) {
  const trpc = useTRPC();
  const save = useMutation(trpc.user.setPrefs.mutationOptions());
  const [on, setOn] = useState(initial);
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});

  async function change(next: boolean) {
    setOn(next);
    try {
      const prefs = await save.mutateAsync({ [pref]: next });
      setOn(prefs[pref]);
      setMessage({ success: prefs[pref] ? saved.on : saved.off });
    } catch (failure) {
      setOn(!next);
      setMessage({ error: (failure as Error).message });
    }
  }

  return (
    <div className="space-y-2">
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          className="mt-0.5 size-4 accent-neutral-900 dark:accent-neutral-100"
          checked={on}
          disabled={save.isPending}
          onChange={(event) => void change(event.currentTarget.checked)}
        />
        <span>{label}</span>
      </label>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">{children}</p>
      <FormMessage error={message.error} success={message.success} />
    </div>
  );
}
