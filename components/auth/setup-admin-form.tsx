'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import { signInWithPassword } from './sign-in-with-password';

/** First run: nobody exists yet; the setup code from the server log creates the admin. */
export function SetupAdminForm() {
  const trpc = useTRPC();
  const setup = useMutation(trpc.auth.setup.mutationOptions());
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    setError(null);
    try {
      await setup.mutateAsync({ code: String(form.get('code')), email, password });
    } catch (failure) {
      setError((failure as Error).message);
      return;
    }
    const signInError = await signInWithPassword(email, password);
    if (signInError) setError(signInError);
    else window.location.assign('/');
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="setup-title">
      <h2 id="setup-title" className="text-lg font-semibold">
        Create the admin account
      </h2>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        No account exists yet. The server printed a one-time setup code in its log when it started.
      </p>
      <TextField label="Setup code" name="code" autoComplete="off" required />
      <TextField label="Admin email" name="email" type="email" autoComplete="username" required />
      <TextField label="Password (8 characters or more)" name="password" type="password" autoComplete="new-password" minLength={8} required />
      <FormMessage error={error} />
      <Button type="submit" disabled={setup.isPending} className="w-full">
        Create admin and sign in
      </Button>
    </form>
  );
}
