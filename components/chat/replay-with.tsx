'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Shuffle } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { DialogFrame } from '@/components/ui/dialog-frame';
import { TextField } from '@/components/ui/text-field';
import { useFormDialog } from '@/components/ui/use-form-dialog';
import { useReloadMessages } from '@/components/session/messages-context';
import { useTRPC } from '@/trpc/client';

/** What the page read off the reply (server/proxy/replay-offer.ts). */
type Offer = { kept: true; upstream: string; model: string; kind: 'anthropic' | 'openai' } | { kept: false; reason: string };

const TRIGGER =
  'inline-flex items-center gap-1 rounded-md border border-neutral-300 px-2 py-1 text-xs hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-50 disabled:hover:bg-transparent dark:border-neutral-700 dark:hover:bg-neutral-800';
const KIND_NAME = { anthropic: 'Anthropic', openai: 'OpenAI' } as const;
/** The "Send through" choice that is the web chat's model server, not an upstream (upstream names are lower-case words). */
const CHAT_MODEL_SERVER = '@chat';

/**
 * "Replay with…" on a recorded agent's reply (DESIGN §14 Replay): the request the agent sent for
 * it, sent again to another model (session.replay) through one of the user's upstreams that speak
 * its API, or to the web chat's model server (carried over into its API); the answer becomes a
 * branch beside the reply, named after the model. A reply whose request was not kept shows the
 * button disabled with why.
 */
export function ReplayWith({ sessionId, assistantId, offer }: { sessionId: string; assistantId: string; offer: Offer }) {
  const reasonId = useId();
  if (!offer.kept) {
    return (
      <>
        <button type="button" disabled aria-describedby={reasonId} title={offer.reason} className={TRIGGER}>
          <Shuffle size={14} aria-hidden />
          Replay with…
        </button>
        <span id={reasonId} className="sr-only">
          {offer.reason}
        </span>
      </>
    );
  }
  return <ReplayDialog sessionId={sessionId} assistantId={assistantId} offer={offer} />;
}

function ReplayDialog({ sessionId, assistantId, offer }: { sessionId: string; assistantId: string; offer: Extract<Offer, { kept: true }> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const reload = useReloadMessages();
  const { open, setOpen, error, setError, onOpenChange } = useFormDialog();
  const [asked, setAsked] = useState<{ model: string; upstream: string } | null>(null);
  const [through, setThrough] = useState<string | null>(null);
  const listed = useQuery({ ...trpc.proxy.listUpstreams.queryOptions(), enabled: open });
  const state = useQuery({ ...trpc.chat.state.queryOptions({ sessionId }), enabled: open });
  const chatModels = useQuery({ ...trpc.chat.models.queryOptions(), enabled: open });
  const chatDefault = chatModels.data?.defaultModel ?? null;
  const replay = useMutation(trpc.session.replay.mutationOptions());
  // The user's upstreams that speak this request's API and that the server has a key for now.
  const sendable = new Set(state.data?.agentUpstreams ?? []);
  const upstreams = (listed.data ?? []).filter((view) => view.kind === offer.kind && sendable.has(view.name)).map((view) => view.name);
  const loading = listed.isPending || state.isPending || chatModels.isPending;
  const choices = [...upstreams, ...(chatDefault ? [CHAT_MODEL_SERVER] : [])];
  const chosen = through !== null && choices.includes(through) ? through : upstreams.includes(offer.upstream) ? offer.upstream : choices[0];
  const toChatModel = chosen === CHAT_MODEL_SERVER;
  const modelsId = useId();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const model = String(form.get('model') ?? '').trim();
    const upstream = String(form.get('upstream') ?? offer.upstream);
    setError(null);
    setAsked({ model: model || (chatDefault ?? ''), upstream: upstream === CHAT_MODEL_SERVER ? "the chat's model server" : upstream });
    try {
      await replay.mutateAsync(
        upstream === CHAT_MODEL_SERVER ? { sessionId, nodeId: assistantId, via: 'chat', ...(model ? { model } : {}) } : { sessionId, nodeId: assistantId, upstream, model },
      );
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: trpc.message.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.timeline.pathKey() });
      await reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  return (
    <DialogFrame
      open={open}
      onOpenChange={onOpenChange}
      trigger={
        <button type="button" className={TRIGGER}>
          <Shuffle size={14} aria-hidden />
          Replay with…
        </button>
      }
      title="Replay with another model"
      description={`The request the agent sent for this reply (${offer.model || 'its model'} through ${offer.upstream}): its system prompt, messages and tools, sent again with only the model changed (to the chat's model server in its own API). The answer becomes a branch beside this reply, named after the model; tool calls in it are recorded, not run.`}
      onSubmit={(event) => void submit(event)}
      submit={{ label: replay.isPending ? 'Replaying…' : 'Replay', disabled: replay.isPending || loading || choices.length === 0 }}
    >
      {!loading && choices.length === 0 ? (
        <p className="text-sm text-neutral-700 dark:text-neutral-300">
          None of your upstreams can send an {KIND_NAME[offer.kind]} request now: add an {KIND_NAME[offer.kind]} upstream with its key in{' '}
          <a href="/settings#connect-title" className="underline">
            Settings → Connect an agent
          </a>
          .
        </p>
      ) : null}
      <div className="space-y-3">
        <label className="block text-sm font-medium text-neutral-700 dark:text-neutral-300">
          Send through
          <select
            name="upstream"
            value={chosen ?? ''}
            onChange={(event) => setThrough(event.target.value)}
            disabled={choices.length === 0}
            className="mt-1 block w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm dark:border-neutral-700 dark:bg-neutral-900"
          >
            {upstreams.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
            {chatDefault ? <option value={CHAT_MODEL_SERVER}>the chat&apos;s model server</option> : null}
          </select>
        </label>
        <TextField
          label="Model"
          name="model"
          required={!toChatModel}
          autoComplete="off"
          spellCheck={false}
          maxLength={200}
          list={toChatModel ? modelsId : undefined}
          placeholder={toChatModel ? `${chatDefault} (the chat's default)` : offer.kind === 'anthropic' ? 'e.g. claude-sonnet-4-5' : 'e.g. gpt-5'}
        />
        {toChatModel ? (
          <datalist id={modelsId}>
            {(chatModels.data?.models ?? []).map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        ) : null}
      </div>
      {replay.isPending && asked ? (
        <p role="status" className="text-sm text-neutral-600 dark:text-neutral-400">
          Waiting for {asked.model} through {asked.upstream}…
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="text-sm break-words text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </DialogFrame>
  );
}
