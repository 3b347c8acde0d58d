'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import { signInWithPassword } from './sign-in-with-password';

/** Shown only while the admin has opened self sign-up. */
export function SignUpForm() {
  const trpc = useTRPC();
  const signup = useMutation(trpc.auth.signup.mutationOptions());
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    setError(null);
    try {
      await signup.mutateAsync({ email, password });
    } catch (failure) {
      setError((failure as Error).message);
      return;
    }
    const signInError = await signInWithPassword(email, password);
    if (signInError) setError(signInError);
    else window.location.assign('/');
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="sign-up-title">
      <h2 id="sign-up-title" className="text-lg font-semibold">
        Create an account
      </h2>
      <TextField label="Email" name="email" type="email" autoComplete="username" required />
      <TextField label="Password (8 characters or more)" name="password" type="password" autoComplete="new-password" minLength={8} required />
      <FormMessage error={error} />
      <Button type="submit" variant="secondary" disabled={signup.isPending} className="w-full">
        Sign up
      </Button>
    </form>
  );
}
