'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';

export function CreateUserForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.admin.createUser.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.admin.listUsers.queryKey() }),
    }),
  );
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    try {
      const user = await create.mutateAsync({
        email: String(form.get('email')),
        password: String(form.get('password')),
        admin: form.get('admin') === 'on',
      });
      formElement.reset();
      setMessage({ success: `Created ${user.email}.` });
    } catch (failure) {
      setMessage({ error: (failure as Error).message });
    }
  }

  return (
    <form onSubmit={onSubmit} className="space-y-3" aria-labelledby="create-user-title">
      <h2 id="create-user-title" className="text-lg font-semibold">
        Create a user
      </h2>
      <div className="flex flex-wrap items-end gap-3">
        <TextField label="Email" name="email" type="email" required className="min-w-56 flex-1" />
        <TextField label="Initial password" name="password" type="password" autoComplete="new-password" minLength={8} required />
        <label className="flex items-center gap-2 pb-2 text-sm">
          <input type="checkbox" name="admin" className="h-4 w-4" /> Admin
        </label>
        <Button type="submit" disabled={create.isPending}>
          Create user
        </Button>
      </div>
      <FormMessage error={message.error} success={message.success} />
    </form>
  );
}
