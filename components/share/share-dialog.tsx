'use client';

import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { X } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import { DialogPanel } from '@/components/ui/dialog-panel';
import { FormMessage } from '@/components/ui/form-message';
import { useTRPC } from '@/trpc/client';
import { ShareLinkItem } from './share-link-item';
import { audienceOf, EXPIRY_CHOICES, type ShareExpiry } from './share-text';

type Scope = 'session' | 'live' | 'turn';

const SCOPES: ReadonlyArray<{ value: Scope; label: string; hint: string }> = [
  { value: 'session', label: 'Up to now', hint: 'later turns stay private until you press Update' },
  { value: 'live', label: 'Live', hint: 'follows every new turn' },
  { value: 'turn', label: 'Only the latest turn', hint: 'one question and its answer' },
];

const FIELD =
  'rounded-md border border-neutral-300 bg-white px-2 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:border-neutral-700 dark:bg-neutral-900';

/**
 * The "Share session" dialog (DESIGN §7, §13): this session's links, each with Copy link,
 * expiry, live/pinned, Update and Revoke, and a form for a new one.
 */
export function ShareDialog({ sessionId, title, open, onOpenChange }: { sessionId: string; title: string; open: boolean; onOpenChange(open: boolean): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.share.list.queryOptions({ sessionId }), enabled: open });
  const [scope, setScope] = useState<Scope>('session');
  const [expires, setExpires] = useState<ShareExpiry>('7d');
  const [toolCalls, setToolCalls] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const expiresId = useId();
  const toolCallsHintId = useId();
  const create = useMutation(
    trpc.share.create.mutationOptions({
      onSuccess: async () => {
        setError(null);
        await queryClient.invalidateQueries({ queryKey: trpc.share.list.pathKey() });
        toast.success('Link created. Copy it to share it.');
      },
      onError: (failure) => setError(failure.message),
    }),
  );
  const mode = list.data?.mode ?? null;
  const links = list.data?.links ?? [];
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    create.mutate({ sessionId, scope, expires, toolCalls });
  };
  return (
    <DialogPanel open={open} onOpenChange={onOpenChange} className="max-h-[calc(100dvh-2rem)] w-[min(36rem,calc(100vw-2rem))]">
      <div className="flex items-start gap-2">
        <Dialog.Title className="flex-1 text-base font-semibold">Share session</Dialog.Title>
        <Dialog.Close aria-label="Close" className="rounded p-1 text-neutral-500 hover:bg-neutral-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800">
          <X size={16} aria-hidden />
        </Dialog.Close>
      </div>
      <Dialog.Description className="mt-1 text-sm text-neutral-600 dark:text-neutral-400">
        “{title}”, read-only. {mode ? audienceOf(mode) : null} A link never shows the system prompt, other branches or who you are.
      </Dialog.Description>
      {list.isError ? <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-400">The links could not be loaded: {list.error.message}</p> : null}
      {links.length > 0 ? (
        <ul aria-label="Links to this session" className="mt-4 space-y-3">
          {links.map((link) => (
            <ShareLinkItem key={link.id} link={link} disabled={mode === 'off'} />
          ))}
        </ul>
      ) : null}
      {mode !== null && mode !== 'off' ? (
        <form onSubmit={submit} aria-label="New link" className="mt-4 space-y-3 border-t border-neutral-200 pt-4 dark:border-neutral-800">
          <fieldset className="space-y-1.5">
            <legend className="mb-1 text-sm font-medium">{links.length > 0 ? 'Another link shows' : 'The link shows'}</legend>
            {SCOPES.map((choice) => (
              <label key={choice.value} className="flex items-baseline gap-2 text-sm">
                <input type="radio" name="scope" value={choice.value} checked={scope === choice.value} onChange={() => setScope(choice.value)} className="accent-blue-600" />
                <span>
                  {choice.label} <span className="text-neutral-500 dark:text-neutral-400">({choice.hint})</span>
                </span>
              </label>
            ))}
          </fieldset>
          <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
            <label htmlFor={expiresId} className="inline-flex items-center gap-2 text-sm">
              Expires after
              <select id={expiresId} value={expires} onChange={(event) => setExpires(event.target.value as ShareExpiry)} className={FIELD}>
                {EXPIRY_CHOICES.map((choice) => (
                  <option key={choice.value} value={choice.value}>
                    {choice.label}
                  </option>
                ))}
              </select>
            </label>
            <label className="inline-flex items-center gap-2 text-sm">
              <input type="checkbox" aria-describedby={toolCallsHintId} checked={toolCalls} onChange={(event) => setToolCalls(event.target.checked)} className="size-4 accent-blue-600" />
              Show tool calls
            </label>
            <p id={toolCallsHintId} className="basis-full text-xs text-neutral-600 dark:text-neutral-400">
              Tool calls are shown as the agent made them: their inputs and results, with absolute paths of the agent&apos;s machine and what
              it read from its files.
            </p>
          </div>
          <FormMessage error={error} />
          <div className="flex justify-end">
            <Button type="submit" disabled={create.isPending}>
              Create link
            </Button>
          </div>
        </form>
      ) : null}
    </DialogPanel>
  );
}
