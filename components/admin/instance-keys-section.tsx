'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type View = RouterOutputs['admin']['instanceKeys'];
type UserRow = RouterOutputs['admin']['listUsers'][number];
type Kind = 'anthropic' | 'openai';

const PROVIDERS: { kind: Kind; label: string }[] = [
  { kind: 'anthropic', label: 'Anthropic' },
  { kind: 'openai', label: 'OpenAI' },
];

/**
 * The instance-wide provider keys (issue 31 item 1): one per kind, shown only as set or not, and
 * a switch per user. A user whose switch is on and who stores no key of their own for the built-in
 * upstream is served by the recording proxy with the instance key; their own key always wins.
 */
export function InstanceKeysSection({ initial, users }: { initial: View; users: UserRow[] }) {
  const trpc = useTRPC();
  const [view, setView] = useState<View>(initial);
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});
  const listed = useQuery(trpc.admin.listUsers.queryOptions(undefined, { initialData: users }));
  const setKey = useMutation(trpc.admin.setInstanceKey.mutationOptions());
  const setUser = useMutation(trpc.admin.setInstanceKeyUser.mutationOptions());

  async function run(action: () => Promise<View>, success: string) {
    setMessage({});
    try {
      setView(await action());
      setMessage({ success });
    } catch (failure) {
      setMessage({ error: (failure as Error).message });
    }
  }

  async function save(event: FormEvent<HTMLFormElement>, kind: Kind, label: string) {
    event.preventDefault();
    const form = event.currentTarget;
    const key = String(new FormData(form).get('key') ?? '').trim();
    if (!key) return setMessage({ error: `Paste the instance ${label} key first.` });
    await run(() => setKey.mutateAsync({ kind, key }), `Instance ${label} key set.`);
    form.reset();
  }

  return (
    <div className="space-y-4">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        A key the recording proxy sends for the users you switch on below, when they have stored no key of their own for the built-in{' '}
        <code>anthropic</code> or <code>openai</code> upstream. A user&apos;s own key always wins. The keys are kept on the server only and never shown again.
      </p>
      <ul className="space-y-3" aria-label="Instance keys">
        {PROVIDERS.map(({ kind, label }) => (
          <li key={kind} aria-label={`Instance ${label} key`} className="rounded-md border border-neutral-200 p-3 dark:border-neutral-800">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <strong className="text-sm">{label}</strong>
              <span role="status" aria-label={`Instance ${label} key status`} className={view.keys[kind].set ? 'text-sm text-green-700 dark:text-green-400' : 'text-sm text-neutral-500'}>
                {view.keys[kind].set ? 'set' : 'not set'}
              </span>
            </div>
            <form onSubmit={(event) => void save(event, kind, label)} className="mt-2 flex flex-wrap items-start gap-2" aria-label={`Set the instance ${label} key`}>
              <TextField
                label={`Instance ${label} key`}
                name="key"
                type="password"
                autoComplete="off"
                placeholder={view.keys[kind].set ? 'set; type to replace' : ''}
                className="min-w-48 flex-1"
              />
              <div className="flex flex-wrap gap-2 pt-6">
                <Button type="submit" variant="secondary" disabled={setKey.isPending}>
                  Save {label} key
                </Button>
                {view.keys[kind].set ? (
                  <Button variant="secondary" disabled={setKey.isPending} onClick={() => void run(() => setKey.mutateAsync({ kind, key: '' }), `Instance ${label} key removed.`)}>
                    Remove {label} key
                  </Button>
                ) : null}
              </div>
            </form>
          </li>
        ))}
      </ul>
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Who may use the instance keys</legend>
        {(listed.data ?? []).map((user) => {
          const on = view.users.includes(user.id);
          return (
            <label key={user.id} className="flex items-center gap-3 text-sm [overflow-wrap:anywhere]">
              <input
                type="checkbox"
                role="switch"
                aria-checked={on}
                aria-label={`${user.email} may use the instance key`}
                checked={on}
                disabled={setUser.isPending}
                onChange={(event) => {
                  const allowed = event.target.checked;
                  void run(() => setUser.mutateAsync({ userId: user.id, allowed }), `${user.email} ${allowed ? 'may' : 'may no longer'} use the instance keys.`);
                }}
                className="h-4 w-4 shrink-0"
              />
              {user.email}
            </label>
          );
        })}
      </fieldset>
      <FormMessage error={message.error} success={message.success} />
    </div>
  );
}
