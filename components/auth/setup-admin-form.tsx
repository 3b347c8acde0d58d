'use client';

import { useMutation } from '@tanstack/react-query';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import { AccountForm } from './account-form';

/** First run: nobody exists yet; the setup code from the server log creates the admin. */
export function SetupAdminForm() {
  const trpc = useTRPC();
  const setup = useMutation(trpc.auth.setup.mutationOptions());
  return (
    <AccountForm
      titleId="setup-title"
      title="Create the admin account"
      emailLabel="Admin email"
      submitLabel="Create admin and sign in"
      pending={setup.isPending}
      create={({ form, email, password }) => setup.mutateAsync({ code: String(form.get('code')), email, password })}
    >
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        No account exists yet. The server printed a one-time setup code in its log when it started.
      </p>
      <TextField label="Setup code" name="code" autoComplete="off" required />
    </AccountForm>
  );
}
