'use client';

import { useState, type FormEvent } from 'react';

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
