'use client';

import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { safeCallbackUrl } from './sign-in-messages';
import { signInWithPassword } from './sign-in-with-password';

export function SignInForm({ callbackUrl, initialError }: { callbackUrl?: string; initialError?: string | null }) {
  const [error, setError] = useState<string | null>(initialError ?? null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const failure = await signInWithPassword(String(form.get('email')), String(form.get('password')));
    if (failure) {
      setError(failure);
      setPending(false);
      return;
    }
    // A full load, so every server component renders for the signed-in user.
    window.location.assign(safeCallbackUrl(callbackUrl));
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby="sign-in-title">
      <h2 id="sign-in-title" className="text-lg font-semibold">
        Sign in
      </h2>
      <TextField label="Email" name="email" type="email" autoComplete="username" required />
      <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
      <FormMessage error={error} />
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? 'Signing in…' : 'Sign in'}
      </Button>
    </form>
  );
}
