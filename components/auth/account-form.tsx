'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { signInWithPassword } from './sign-in-with-password';

interface Props {
  /** the heading's id, which names the form */
  titleId: string;
  title: string;
  /** what comes between the heading and the email field */
  children?: ReactNode;
  emailLabel: string;
  submitLabel: string;
  submitVariant?: 'primary' | 'secondary';
  pending: boolean;
  /** creates the account from the form's fields; a rejection is shown under the form */
  create(fields: { form: FormData; email: string; password: string }): Promise<unknown>;
}

/** An account made from an email and a password, then signed in: the body of the setup and sign-up forms. */
export function AccountForm({ titleId, title, children, emailLabel, submitLabel, submitVariant = 'primary', pending, create }: Props) {
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    setError(null);
    try {
      await create({ form, email, password });
    } catch (failure) {
      setError((failure as Error).message);
      return;
    }
    const signInError = await signInWithPassword(email, password);
    if (signInError) setError(signInError);
    else window.location.assign('/');
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-labelledby={titleId}>
      <h2 id={titleId} className="text-lg font-semibold">
        {title}
      </h2>
      {children}
      <TextField label={emailLabel} name="email" type="email" autoComplete="username" required />
      <TextField label="Password (8 characters or more)" name="password" type="password" autoComplete="new-password" minLength={8} required />
      <FormMessage error={error} />
      <Button type="submit" variant={submitVariant} disabled={pending} className="w-full">
        {submitLabel}
      </Button>
    </form>
  );
}
