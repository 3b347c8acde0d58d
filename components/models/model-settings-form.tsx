'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import { LocalModelDetection } from './local-model-detection';

const field = 'block w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm dark:border-neutral-700 dark:bg-neutral-900';

/**
 * Admin: the model endpoint (URL, key, model, title model) and local detection. The key is never
 * shown again: the field only says whether one is set; leave it empty to keep it.
 */
export function ModelSettingsForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const view = useQuery(trpc.models.get.queryOptions());
  const [form, setForm] = useState({ baseUrl: '', apiKey: '', model: '', titleModel: '' });
  const settings = view.data?.settings;
  useEffect(() => {
    if (settings) setForm({ baseUrl: settings.baseUrl ?? '', apiKey: '', model: settings.model ?? '', titleModel: settings.titleModel ?? '' });
  }, [settings]);
  const save = useMutation(
    trpc.models.set.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.models.get.queryKey(), data);
        void queryClient.invalidateQueries({ queryKey: trpc.chat.modelStatus.queryKey() });
        toast.success(data.status.configured ? `Model in use: ${data.status.model}` : `No model in use: ${data.status.reason}`);
      },
      onError: (error) => toast.error(error.message),
    }),
  );

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    save.mutate({
      baseUrl: form.baseUrl.trim() || null,
      model: form.model.trim() || null,
      titleModel: form.titleModel.trim() || null,
      ...(form.apiKey !== '' ? { apiKey: form.apiKey } : {}),
    });
  }

  const set = (key: keyof typeof form) => (event: { target: { value: string } }) => setForm((current) => ({ ...current, [key]: event.target.value }));
  const env = view.data?.env;
  return (
    <div className="space-y-4">
      <form onSubmit={onSubmit} aria-label="Model settings" className="grid gap-3 sm:grid-cols-2">
        <label className="space-y-1 text-sm sm:col-span-2">
          <span>Server URL (OpenAI-compatible, …/v1)</span>
          <input className={field} value={form.baseUrl} onChange={set('baseUrl')} placeholder={env?.baseUrl ?? 'http://127.0.0.1:11434/v1'} />
        </label>
        <label className="space-y-1 text-sm">
          <span>Model</span>
          <input className={field} value={form.model} onChange={set('model')} placeholder={env?.model ?? 'llama3.1'} />
        </label>
        <label className="space-y-1 text-sm">
          <span>Title model (optional)</span>
          <input className={field} value={form.titleModel} onChange={set('titleModel')} placeholder="the chat model" />
        </label>
        <label className="space-y-1 text-sm sm:col-span-2">
          <span>API key</span>
          <input className={field} type="password" autoComplete="off" value={form.apiKey} onChange={set('apiKey')} placeholder={settings?.apiKeySet ? 'set (leave empty to keep it)' : 'not set'} />
        </label>
        <div className="flex gap-2 sm:col-span-2">
          <button type="submit" disabled={save.isPending} className="rounded-md bg-blue-600 px-3 py-2 text-sm font-medium text-white hover:bg-blue-700 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none">
            Save model
          </button>
          {settings?.apiKeySet ? (
            <button type="button" onClick={() => save.mutate({ apiKey: null })} className="rounded-md border border-neutral-300 px-3 py-2 text-sm dark:border-neutral-700">
              Remove API key
            </button>
          ) : null}
        </div>
      </form>
      <p className="text-xs text-neutral-500">
        Empty fields fall back to the server environment{env?.model ? ` (now ${env.model} at ${env.baseUrl ?? '?'})` : ' (none set)'}.
      </p>
      <LocalModelDetection
        on={settings?.detectLocal ?? false}
        onToggle={(on) => save.mutate({ detectLocal: on })}
        onUse={(baseUrl, model) => save.mutate({ baseUrl, model })}
      />
    </div>
  );
}
