'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FormMessage } from '@/components/ui/form-message';
import { useTRPC } from '@/trpc/client';

/**
 * Whether the prompts of agent sessions (Claude Code, Codex, imports) go to the server's title
 * model for a title: off unless the user turns it on here, and the model they would go to is named.
 */
export function TitleSetting({ initial }: { initial: boolean }) {
  const trpc = useTRPC();
  const save = useMutation(trpc.user.setPrefs.mutationOptions());
  const status = useQuery(trpc.chat.modelStatus.queryOptions());
  const [on, setOn] = useState(initial);
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});

  async function change(next: boolean) {
    setOn(next);
    try {
      const prefs = await save.mutateAsync({ titleAgentSessions: next });
      setOn(prefs.titleAgentSessions);
      setMessage({ success: prefs.titleAgentSessions ? 'Agent sessions are titled by the title model from their next turn on.' : 'Agent sessions keep the first line of their first prompt as their title.' });
    } catch (failure) {
      setOn(!next);
      setMessage({ error: (failure as Error).message });
    }
  }

  const model = status.data?.configured ? (
    <>
      the title model <strong className="font-medium text-neutral-900 break-all dark:text-neutral-100">{status.data.titleModel}</strong> at{' '}
      <code className="break-all">{status.data.baseUrl}</code>
    </>
  ) : null;

  return (
    <div className="space-y-2">
      <label className="flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          className="mt-0.5 size-4 accent-neutral-900 dark:accent-neutral-100"
          checked={on}
          disabled={save.isPending}
          onChange={(event) => void change(event.currentTarget.checked)}
        />
        <span>Title agent sessions with the title model</span>
      </label>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        {!status.data ? (
          'Checking which model titles go to…'
        ) : model ? (
          <>
            Titles go to {model}. Your web chats are titled by it; with this on, the prompts of sessions recorded from Claude Code, Codex or other
            agents are sent to it too (the first turns, for a title). Off, those sessions are titled by the first line of their first prompt and
            nothing of them leaves this server.
          </>
        ) : (
          <>No title model is set on this server: every session is titled by the first line of its first prompt, and nothing is sent anywhere for a title.</>
        )}
      </p>
      <FormMessage error={message.error} success={message.success} />
    </div>
  );
}
