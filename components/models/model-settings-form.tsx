'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import { LocalModelDetection } from './local-model-detection';
import { ModelFields } from './model-fields';

/**
 * Admin: the model endpoint (URL, key, model, title model) and local detection. The key is never
 * shown again: the field only says whether one is set; leave it empty to keep it.
 */
export function ModelSettingsForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const view = useQuery(trpc.models.get.queryOptions());
  const settings = view.data?.settings;
  const save = useMutation(
    trpc.models.set.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.models.get.queryKey(), data);
        void queryClient.invalidateQueries({ queryKey: trpc.chat.modelStatus.queryKey() });
        const check = data.connection;
        if (!data.status.configured) toast.error(`No model in use: ${data.status.reason}`);
        else if (check && !check.ok) toast.error(`Saved, but the model server does not answer: ${check.error}. Chat will fail until it does.`);
        else if (check && !check.modelListed) toast.warning(`Saved. The server answers, but does not list ${data.status.model}${check.models.length ? ` (it lists ${check.models.join(', ')})` : ''}.`);
        else toast.success(`Model in use: ${data.status.model} (the server answers)`);
      },
      onError: (error) => toast.error(error.message),
    }),
  );

  if (!view.data || !settings) return <p className="text-sm text-neutral-500">Loading the model settings…</p>;
  const env = view.data.env;
  return (
    <div className="space-y-4">
      {/* Keyed by what is stored: after a save the fields start again from it (the key field empty). */}
      <ModelFields key={JSON.stringify(settings)} settings={settings} env={env} pending={save.isPending} onSave={(patch) => save.mutate(patch)} />
      <p className="text-xs text-neutral-500">
        Empty fields fall back to the server environment{env.model ? ` (now ${env.model} at ${env.baseUrl ?? '?'})` : ' (none set)'}.
      </p>
      <LocalModelDetection on={settings.detectLocal} onToggle={(on) => save.mutate({ detectLocal: on })} onUse={(baseUrl, model) => save.mutate({ baseUrl, model })} />
    </div>
  );
}
