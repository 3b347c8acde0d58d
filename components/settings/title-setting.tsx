'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';
import { PrefSwitch } from './pref-switch';

/**
 * Whether the prompts of agent sessions (Claude Code, Codex, imports) go to the server's title
 * model for a title: off unless the user turns it on here, and the model they would go to is named.
 */
export function TitleSetting({ initial }: { initial: boolean }) {
  const trpc = useTRPC();
  const status = useQuery(trpc.chat.modelStatus.queryOptions());

  const model = status.data?.configured ? (
    <>
      the title model <strong className="font-medium text-neutral-900 break-all dark:text-neutral-100">{status.data.titleModel}</strong> at{' '}
      <code className="break-all">{status.data.baseUrl}</code>
    </>
  ) : null;

  return (
    <PrefSwitch
      pref="titleAgentSessions"
      initial={initial}
      label="Title agent sessions with the title model"
      saved={{ on: 'Agent sessions are titled by the title model from their next turn on.', off: 'Agent sessions keep the first line of their first prompt as their title.' }}
    >
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
    </PrefSwitch>
  );
}
