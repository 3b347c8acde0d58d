'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useTRPC } from '@/trpc/client';

const field = 'block w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm dark:border-neutral-700 dark:bg-neutral-900';

export interface ModelFieldsProps {
  settings: { baseUrl: string | null; model: string | null; titleModel: string | null; apiKeySet: boolean };
  env: { baseUrl: string | null; model: string | null };
  pending: boolean;
  onSave: (patch: { baseUrl?: string | null; model?: string | null; titleModel?: string | null; apiKey?: string | null }) => void;
}

/** The endpoint fields, starting from what is stored; the key field is always empty (only "set" shows). */
export function ModelFields({ settings, env, pending, onSave }: ModelFieldsProps) {
  const [form, setForm] = useState({ baseUrl: settings.baseUrl ?? '', apiKey: '', model: settings.model ?? '', titleModel: settings.titleModel ?? '' });
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    onSave({
      baseUrl: form.baseUrl.trim() || null,
      model: form.model.trim() || null,
      titleModel: form.titleModel.trim() || null,
      ...(form.apiKey !== '' ? { apiKey: form.apiKey } : {}),
    });
  }
  const set = (key: keyof typeof form) => (event: { target: { value: string } }) => setForm((current) => ({ ...current, [key]: event.target.value }));
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [listing, setListing] = useState<{ state: 'idle' | 'loading' } | { state: 'ok'; models: string[] } | { state: 'error'; error: string }>({ state: 'idle' });
  async function listModels() {
    setListing({ state: 'loading' });
    const baseUrl = form.baseUrl.trim();
    try {
      const result = await queryClient.fetchQuery({ ...trpc.models.serverModels.queryOptions(baseUrl ? { baseUrl } : {}), staleTime: 0 });
      setListing(result.ok ? { state: 'ok', models: result.models } : { state: 'error', error: result.error });
    } catch (failure) {
      setListing({ state: 'error', error: (failure as Error).message });
    }
  }
  // The stored server's list at once, so the dropdown is there when the page opens.
  useEffect(() => {
    if (settings.baseUrl || env.baseUrl) void listModels();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <>
      <form onSubmit={onSubmit} aria-label="Model settings" className="grid gap-3 sm:grid-cols-2">
        <label className="space-y-1 text-sm sm:col-span-2">
          <span>Server URL (OpenAI-compatible, …/v1)</span>
          <input className={field} value={form.baseUrl} onChange={set('baseUrl')} placeholder={env.baseUrl ?? 'http://127.0.0.1:11434/v1'} />
        </label>
        <label className="space-y-1 text-sm">
          <span>Model</span>
          <input className={field} value={form.model} onChange={set('model')} placeholder={env.model ?? 'llama3.1'} />
        </label>
        <div className="space-y-1 text-sm sm:col-span-2">
          <div className="flex flex-wrap items-end gap-2">
            {listing.state === 'ok' && listing.models.length > 0 ? (
              <label className="min-w-0 flex-1 space-y-1">
                <span>Models on the server</span>
                <select
                  className={field}
                  value={listing.models.includes(form.model.trim()) ? form.model.trim() : ''}
                  onChange={(event) => event.target.value && setForm((current) => ({ ...current, model: event.target.value }))}
                >
                  <option value="">Pick one to use it as the model…</option>
                  {listing.models.map((model) => (
                    <option key={model} value={model}>
                      {model}
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
            <button type="button" onClick={() => void listModels()} disabled={listing.state === 'loading'} className="rounded-md border border-neutral-300 px-3 py-2 text-sm dark:border-neutral-700">
              {listing.state === 'loading' ? 'Asking the server…' : 'List the server\'s models'}
            </button>
          </div>
          {listing.state === 'error' ? (
            <p role="status" className="text-xs text-red-700 dark:text-red-400">
              Could not list the models: {listing.error}
            </p>
          ) : listing.state === 'ok' && listing.models.length === 0 ? (
            <p role="status" className="text-xs text-neutral-500">The server answers but lists no models.</p>
          ) : null}
        </div>
        <label className="space-y-1 text-sm">
          <span>Title model (optional)</span>
          <input className={field} value={form.titleModel} onChange={set('titleModel')} placeholder="the chat model" />
        </label>
        <label className="space-y-1 text-sm sm:col-span-2">
          <span>API key</span>
          <input className={field} type="password" autoComplete="off" value={form.apiKey} onChange={set('apiKey')} placeholder={settings.apiKeySet ? 'set (leave empty to keep it)' : 'not set'} />
        </label>
        <div className="flex gap-2 sm:col-span-2">
          <button type="submit" disabled={pending} className="rounded-md bg-blue-600 px-3 py-2 text-sm font-medium text-white hover:bg-blue-700 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none">
            Save model
          </button>
          {settings.apiKeySet ? (
            <button type="button" onClick={() => onSave({ apiKey: null })} className="rounded-md border border-neutral-300 px-3 py-2 text-sm dark:border-neutral-700">
              Remove API key
            </button>
          ) : null}
        </div>
      </form>
    </>
  );
}
