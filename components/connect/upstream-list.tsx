'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type Upstream = RouterOutputs['proxy']['listUpstreams'][number];

/** The add form's name in a FieldError (an upstream's name is lower-case letters, digits and dashes: never this). */
const NEW_FORM = 'New upstream';

/** A refusal of a save, shown at the field it is about (a form's name: a row's upstream name, or `new`). */
interface FieldError {
  form: string;
  field: 'baseUrl' | 'key';
  message: string;
}

/** Which field a refusal is about: the API names `key` in its message; everything else concerns the URL (the SSRF check, the scheme). */
function fieldError(form: string, failure: unknown, saved?: string): FieldError {
  const message = (failure as Error).message;
  const field = /^key\b/.test(message) ? 'key' : 'baseUrl';
  const still = field === 'baseUrl' && saved ? ` The upstream still uses ${saved}.` : '';
  return { form, field, message: `Not saved: ${message}${still}` };
}

/**
 * Where the proxy forwards (DESIGN §12): the two built-in upstreams and any added, each with its
 * provider key shown only as set or not. A key typed here is sent once and never shown again.
 */
export function UpstreamList({ initial }: { initial: Upstream[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.proxy.listUpstreams.queryOptions(), initialData: initial });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.proxy.listUpstreams.queryKey() });
  const set = useMutation(trpc.proxy.setUpstream.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.proxy.deleteUpstream.mutationOptions({ onSuccess: refresh }));
  const [error, setError] = useState<string | null>(null);
  const [refused, setRefused] = useState<FieldError | null>(null);
  const errorAt = (form: string, field: FieldError['field']) => (refused?.form === form && refused.field === field ? refused.message : null);

  async function save(event: FormEvent<HTMLFormElement>, upstream: Upstream) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setError(null);
    setRefused(null);
    try {
      await set.mutateAsync({ name: upstream.name, kind: upstream.kind, baseUrl: String(data.get('baseUrl') ?? ''), ...(String(data.get('key') ?? '') ? { key: String(data.get('key')) } : {}) });
      form.reset();
      toast.success(`Upstream ${upstream.name} saved`);
    } catch (failure) {
      // At the field, and the typed value kept there to correct: the row's own saved URL is named.
      setRefused(fieldError(upstream.name, failure, upstream.baseUrl));
    }
  }

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setError(null);
    setRefused(null);
    try {
      const kind = String(data.get('kind')) === 'anthropic' ? 'anthropic' : 'openai';
      await set.mutateAsync({ name: String(data.get('name')), kind, baseUrl: String(data.get('baseUrl')), ...(String(data.get('key') ?? '') ? { key: String(data.get('key')) } : {}) });
      form.reset();
    } catch (failure) {
      const message = (failure as Error).message;
      if (/^name\b/.test(message)) setError(message);
      else setRefused(fieldError(NEW_FORM, failure));
    }
  }

  return (
    <div className="space-y-4">
      <ul className="space-y-3" aria-label="Upstreams">
        {list.data.map((upstream) => (
          <li key={upstream.name} aria-label={`Upstream ${upstream.name}`} className="rounded-md border border-neutral-200 p-3 dark:border-neutral-800">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <p className="text-sm">
                <strong>{upstream.name}</strong> <span className="text-neutral-500">({upstream.kind === 'anthropic' ? 'Anthropic Messages' : 'OpenAI'})</span> at{' '}
                <code className="break-all">/proxy/{upstream.name}</code>
              </p>
              <span className={upstream.keySet ? 'text-sm text-green-700 dark:text-green-400' : 'text-sm text-neutral-500'}>{upstream.keySet ? 'Key set' : upstream.instanceKey ? 'No key stored: the instance key is used' : 'No key stored'}</span>
            </div>
            <form onSubmit={(event) => void save(event, upstream)} className="mt-2 flex flex-wrap items-start gap-2" aria-label={`Edit upstream ${upstream.name}`}>
              <TextField
                label="Base URL"
                name="baseUrl"
                defaultValue={upstream.baseUrl}
                required
                error={errorAt(upstream.name, 'baseUrl')}
                onChange={() => setRefused(null)}
                className="min-w-64 flex-[2]"
              />
              <TextField
                label={`Provider key for ${upstream.name}`}
                name="key"
                type="password"
                autoComplete="off"
                placeholder={upstream.keySet ? 'stored; type to replace' : ''}
                error={errorAt(upstream.name, 'key')}
                className="min-w-48 flex-1"
              />
              {/* Level with the inputs (below their labels), whatever an error under a field adds. */}
              <div className="flex flex-wrap gap-2 pt-6">
                <Button type="submit" variant="secondary" disabled={set.isPending}>
                  Save
                </Button>
                {upstream.keySet ? (
                  <Button variant="secondary" onClick={() => void set.mutateAsync({ name: upstream.name, kind: upstream.kind, key: '' }).then(() => toast.success(`Key of ${upstream.name} removed`), (failure: Error) => setError(failure.message))}>
                    Remove key
                  </Button>
                ) : null}
                {upstream.builtIn ? null : (
                  <Button variant="danger" onClick={() => void remove.mutateAsync({ name: upstream.name }).catch((failure: Error) => setError(failure.message))}>
                    Delete upstream
                  </Button>
                )}
              </div>
            </form>
          </li>
        ))}
      </ul>
      <form onSubmit={(event) => void add(event)} className="flex flex-wrap items-start gap-2" aria-label="Add an upstream">
        <TextField label="Upstream name" name="name" required pattern="[a-z0-9][a-z0-9-]{0,31}" title="lower-case letters, digits and dashes" className="min-w-36 flex-1" />
        <div>
          <label htmlFor="upstream-kind" className="block text-sm font-medium text-neutral-700 dark:text-neutral-300">
            Kind
          </label>
          <select id="upstream-kind" name="kind" className="mt-1 block rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm dark:border-neutral-700 dark:bg-neutral-900">
            <option value="openai">OpenAI</option>
            <option value="anthropic">Anthropic</option>
          </select>
        </div>
        <TextField
          label="Base URL of the new upstream"
          name="baseUrl"
          required
          placeholder="https://llm.example.com/v1"
          error={errorAt(NEW_FORM, 'baseUrl')}
          onChange={() => setRefused(null)}
          className="min-w-56 flex-[2]"
        />
        <TextField label="Provider key (optional)" name="key" type="password" autoComplete="off" error={errorAt(NEW_FORM, 'key')} className="min-w-40 flex-1" />
        <div className="pt-6">
          <Button type="submit" disabled={set.isPending}>
            Add upstream
          </Button>
        </div>
      </form>
      <FormMessage error={error} />
    </div>
  );
}
