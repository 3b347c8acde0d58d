'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';

export function ChangePasswordForm() {
  const trpc = useTRPC();
  const change = useMutation(trpc.user.changePassword.mutationOptions());
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    if (form.get('next') !== form.get('confirm')) {
      setMessage({ error: 'The new passwords do not match.' });
      return;
    }
    try {
      await change.mutateAsync({ current: String(form.get('current')), next: String(form.get('next')) });
      formElement.reset();
      setMessage({ success: 'Password changed.' });
    } catch (failure) {
      setMessage({ error: (failure as Error).message });
    }
  }

  return (
    <form onSubmit={onSubmit} className="max-w-sm space-y-3" aria-labelledby="password-title">
      <h2 id="password-title" className="text-lg font-semibold">
        Password
      </h2>
      <TextField label="Current password" name="current" type="password" autoComplete="current-password" required />
      <TextField label="New password" name="next" type="password" autoComplete="new-password" minLength={8} required />
      <TextField label="New password again" name="confirm" type="password" autoComplete="new-password" minLength={8} required />
      <FormMessage error={message.error} success={message.success} />
      <Button type="submit" disabled={change.isPending}>
        Change password
      </Button>
    </form>
  );
}
