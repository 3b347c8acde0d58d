'use client';

import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ScrollText, X } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import { useTRPC } from '@/trpc/client';

const control =
  'max-w-48 rounded-md border border-neutral-200 bg-white px-2 py-1 text-xs text-neutral-700 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-300';

/**
 * The model a chat runs on, from what the server offers (chat.models: the configured model, then
 * the others its server lists). `value` null is the configured default. Nothing to pick: nothing shown.
 */
export function ModelSelect({ value, onChange, disabled = false }: { value: string | null; onChange(model: string | null): void; disabled?: boolean }) {
  const trpc = useTRPC();
  const choices = useQuery(trpc.chat.models.queryOptions());
  const models = choices.data?.models ?? [];
  const fallback = choices.data?.defaultModel ?? null;
  if (models.length === 0) return null;
  const current = value && models.includes(value) ? value : fallback ?? '';
  return (
    <select
      aria-label="Model"
      title="The model this chat runs on"
      value={current}
      disabled={disabled}
      onChange={(event) => onChange(event.target.value === fallback ? null : event.target.value)}
      className={control}
    >
      {models.map((model) => (
        <option key={model} value={model}>
          {model === fallback ? `${model} (default)` : model}
        </option>
      ))}
    </select>
  );
}

/** An open session's model pick, kept in its context/chat.json (from the next turn on). */
export function SessionModelSelect({ sessionId, disabled }: { sessionId: string; disabled?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.chat.settings.queryOptions({ sessionId }));
  const save = useMutation(
    trpc.chat.setSettings.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.chat.settings.queryKey({ sessionId }), data),
      onError: (error) => toast.error(error.message),
    }),
  );
  if (!settings.data) return null;
  return <ModelSelect value={settings.data.model} disabled={disabled || save.isPending} onChange={(model) => save.mutate({ sessionId, model })} />;
}

/** The chat's own system prompt (after the built-in one), edited in a dialog; kept in context/chat.json. */
export function SystemPromptButton({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.chat.settings.queryOptions({ sessionId }));
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const save = useMutation(trpc.chat.setSettings.mutationOptions());
  const current = settings.data?.systemPrompt ?? null;

  async function onSave(next: string | null) {
    try {
      const data = await save.mutateAsync({ sessionId, systemPrompt: next });
      queryClient.setQueryData(trpc.chat.settings.queryKey({ sessionId }), data);
      setOpen(false);
      toast.success(data.systemPrompt ? 'System prompt saved: it applies from the next message.' : 'System prompt removed.');
    } catch (failure) {
      toast.error((failure as Error).message);
    }
  }

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        if (next) setText(current ?? '');
        setOpen(next);
      }}
    >
      <Dialog.Trigger className={`${control} inline-flex items-center gap-1 hover:bg-neutral-100 dark:hover:bg-neutral-800`}>
        <ScrollText size={14} aria-hidden />
        {current ? 'System prompt (set)' : 'System prompt'}
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 w-[min(36rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 space-y-3 rounded-lg border border-neutral-200 bg-white p-5 shadow-xl focus:outline-none dark:border-neutral-800 dark:bg-neutral-900">
          <div className="flex items-start justify-between gap-2">
            <Dialog.Title className="text-base font-semibold">System prompt</Dialog.Title>
            <Dialog.Close aria-label="Close" className="rounded-md p-1 text-neutral-500 hover:bg-neutral-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800">
              <X size={16} aria-hidden />
            </Dialog.Close>
          </div>
          <Dialog.Description className="text-sm text-neutral-600 dark:text-neutral-400">
            Sent to the model with every message of this chat, after the built-in instructions. Kept with the session&apos;s history and shown on its timeline.
          </Dialog.Description>
          <textarea
            aria-label="System prompt"
            value={text}
            onChange={(event) => setText(event.target.value)}
            rows={8}
            maxLength={20_000}
            className="block w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm focus:border-blue-600 focus:outline-none focus:ring-2 focus:ring-blue-600/30 dark:border-neutral-700 dark:bg-neutral-950"
            placeholder="e.g. Answer briefly, in British English."
          />
          <div className="flex flex-wrap justify-end gap-2">
            {current ? (
              <Button variant="secondary" onClick={() => void onSave(null)} disabled={save.isPending} className="mr-auto">
                Remove
              </Button>
            ) : null}
            <Dialog.Close asChild>
              <Button variant="secondary">Cancel</Button>
            </Dialog.Close>
            <Button onClick={() => void onSave(text.trim() === '' ? null : text)} disabled={save.isPending}>
              Save
            </Button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
