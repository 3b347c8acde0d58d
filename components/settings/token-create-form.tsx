'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import { CopyTextButton } from './copy-text-button';
import { curlExample } from './curl-example';
import { scopesFromForm, TokenScopesField } from './token-scopes-field';

/** Creates a token and shows it once; it cannot be seen again after this. */
export function TokenCreateForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.token.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.token.list.queryKey() }),
    }),
  );
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const name = String(form.get('name'));
    const expires = String(form.get('expires') ?? '');
    setError(null);
    try {
      const expiresAt = expires ? new Date(`${expires}T23:59:59`).getTime() : null;
      const { scopes, projectId } = scopesFromForm(form);
      if (scopes.length === 0) throw new Error('Choose at least one scope.');
      const { token } = await create.mutateAsync({ name, expiresAt, scopes, projectId });
      setCreated({ name, token });
      formElement.reset();
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  return (
    <div className="space-y-3">
      <form onSubmit={onSubmit} className="flex flex-wrap items-end gap-3" aria-label="Create an API token">
        <TextField label="Token name" name="name" required maxLength={100} className="min-w-48 flex-1" />
        <TextField label="Expires (optional)" name="expires" type="date" />
        <TokenScopesField />
        <Button type="submit" disabled={create.isPending}>
          Create token
        </Button>
      </form>
      <FormMessage error={error} />
      {created ? (
        <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950">
          <p>
            Token <strong>{created.name}</strong> created. Copy it now: it is shown only once.
          </p>
          <code data-testid="new-token" className="mt-2 block break-all rounded bg-white px-2 py-1 font-mono dark:bg-neutral-900">
            {created.token}
          </code>
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <CopyTextButton text={created.token} label="Copy token" />
            <CopyTextButton text={curlExample({ origin: window.location.origin, token: created.token })} label="Copy curl example" />
          </div>
          <details className="mt-2">
            <summary className="cursor-pointer text-neutral-700 dark:text-neutral-300">Write a session with curl (the example, with this token)</summary>
            <pre className="mt-2 max-h-72 overflow-auto rounded bg-white p-2 font-mono text-xs dark:bg-neutral-900">
              {curlExample({ origin: window.location.origin, token: created.token })}
            </pre>
          </details>
          <Button variant="secondary" className="mt-2" onClick={() => setCreated(null)}>
            Done
          </Button>
        </div>
      ) : null}
    </div>
  );
}
