'use client';

import * as Tabs from '@radix-ui/react-tabs';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { LocalTime } from '@/components/session/local-time';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type LastExchanges = RouterOutputs['proxy']['lastExchanges'];
type Upstreams = RouterOutputs['proxy']['listUpstreams'];

const TOKEN_PLACEHOLDER = '<your Entity Memory token>';
/** The proxy's header for our token beside the agent's own key (server/proxy/credentials.ts). */
const MEMORY_TOKEN_HEADER = 'x-entity-memory-token';

interface AgentTab {
  id: 'claude-code' | 'codex' | 'openai-sdk' | 'anthropic-sdk';
  label: string;
  intro: string;
  /** the built-in upstream whose stored key the lines rely on (our token as the API key) */
  upstream: 'anthropic' | 'openai';
  lines(origin: string, token: string): string;
}

/** What to paste for each agent (DESIGN §12): base URL at this server, our token as the API key. */
const AGENTS: AgentTab[] = [
  {
    id: 'claude-code',
    label: 'Claude Code',
    upstream: 'anthropic',
    intro: 'In the shell that starts claude. The proxy calls Anthropic with the key stored below.',
    lines: (origin, token) => [`export ANTHROPIC_BASE_URL=${origin}/proxy/anthropic`, `export ANTHROPIC_API_KEY=${token}`, 'claude', '', '# or keep your own Anthropic key and send the token beside it:', `# export ANTHROPIC_CUSTOM_HEADERS="x-entity-memory-token: ${token}"`].join('\n'),
  },
  {
    id: 'codex',
    label: 'Codex',
    upstream: 'openai',
    intro: 'In ~/.codex/config.toml, then export the token in the shell that starts codex.',
    lines: (origin, token) =>
      [
        'model_provider = "entity-memory"',
        '',
        '[model_providers.entity-memory]',
        'name = "Entity Memory"',
        `base_url = "${origin}/proxy/openai/v1"`,
        'wire_api = "responses"',
        'env_key = "ENTITY_MEMORY_TOKEN"',
        '',
        `# shell: export ENTITY_MEMORY_TOKEN=${token}`,
      ].join('\n'),
  },
  {
    id: 'openai-sdk',
    label: 'OpenAI SDK',
    upstream: 'openai',
    intro: 'Responses and Chat Completions, streamed or not.',
    lines: (origin, token) => ["import OpenAI from 'openai';", '', `const client = new OpenAI({ baseURL: '${origin}/proxy/openai/v1', apiKey: '${token}' });`].join('\n'),
  },
  {
    id: 'anthropic-sdk',
    label: 'Anthropic SDK',
    upstream: 'anthropic',
    intro: 'Messages, streamed or not.',
    lines: (origin, token) => ["import Anthropic from '@anthropic-ai/sdk';", '', `const client = new Anthropic({ baseURL: '${origin}/proxy/anthropic', apiKey: '${token}' });`].join('\n'),
  },
];

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  // Plain http on another host: the old way still copies.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused to copy');
}

/**
 * Settings → "Connect an agent": a tab per agent with the lines to paste (this server's origin,
 * a token made here on the spot), and the agent's last recorded exchange.
 */
export function ConnectAgent({ serverOrigin, initialLast, initialUpstreams }: { serverOrigin: string; initialLast: LastExchanges; initialUpstreams: Upstreams }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [origin, setOrigin] = useState(serverOrigin);
  const [token, setToken] = useState<string | null>(null);
  const [agent, setAgent] = useState<AgentTab['id']>('claude-code');
  const last = useQuery({ ...trpc.proxy.lastExchanges.queryOptions(), initialData: initialLast, refetchInterval: 5_000 });
  // The same query as the Upstreams list below: a key saved in either place shows in both.
  const upstreams = useQuery({ ...trpc.proxy.listUpstreams.queryOptions(), initialData: initialUpstreams });
  const create = useMutation(
    trpc.token.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.token.list.queryKey() }),
    }),
  );
  // The address this browser reached the server at is the one an agent on this machine can use.
  useEffect(() => setOrigin(window.location.origin), []);

  async function makeToken() {
    const tab = AGENTS.find((entry) => entry.id === agent)!;
    try {
      const made = await create.mutateAsync({ name: `${tab.label} (connect an agent)` });
      setToken(made.token);
    } catch (error) {
      toast.error(`No token made: ${(error as Error).message}`);
    }
  }

  return (
    <div className="space-y-3">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        Point an agent at this server and every exchange with its model becomes a session here, live in the sidebar.
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="secondary" onClick={() => void makeToken()} disabled={create.isPending}>
          {token ? 'Make another token' : 'Make a token'}
        </Button>
        <span role="status" className="text-sm text-neutral-600 dark:text-neutral-400">
          {token ? 'A new token is in the lines below: copy them now, it is shown only once.' : 'The lines use a placeholder until you make a token.'}
        </span>
      </div>
      <Tabs.Root value={agent} onValueChange={(value) => setAgent(value as AgentTab['id'])}>
        {/* One row that scrolls at 390 px: wrapped, the last tab sat alone below the active one's underline. */}
        <Tabs.List aria-label="Agent" className="flex gap-1 overflow-x-auto border-b border-neutral-200 dark:border-neutral-800">
          {AGENTS.map((entry) => (
            <Tabs.Trigger
              key={entry.id}
              value={entry.id}
              className="shrink-0 whitespace-nowrap rounded-t-md border-b-2 border-transparent px-2.5 py-2 text-sm font-medium sm:px-3 text-neutral-600 hover:text-neutral-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-blue-600 data-[state=active]:border-blue-600 data-[state=active]:text-neutral-900 dark:text-neutral-400 dark:hover:text-neutral-100 dark:data-[state=active]:text-neutral-100"
            >
              {entry.label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        {AGENTS.map((entry) => {
          const text = entry.lines(origin, token ?? TOKEN_PLACEHOLDER);
          const lastOfAgent = last.data.find((item) => item.agent === entry.id);
          const exchange = lastOfAgent?.session ?? null;
          const refused = lastOfAgent?.refused ?? null;
          return (
            <Tabs.Content key={entry.id} value={entry.id} className="space-y-2 pt-3 focus:outline-none">
              <p className="text-sm text-neutral-600 dark:text-neutral-400">{entry.intro}</p>
              {(() => {
                const own = upstreams.data.find((upstream) => upstream.name === entry.upstream);
                return own?.keySet === false ? <NoKeyStored agent={entry} instanceKey={own.instanceKey} /> : null;
              })()}
              {/* Wrapped, not scrolled: on a phone the end of a long line (the header line, the token) stays in view; Copy copies the lines as they are. */}
              <pre aria-label={`Lines for ${entry.label}`} className="whitespace-pre-wrap rounded-md [overflow-wrap:anywhere] border border-neutral-200 bg-neutral-100 p-3 font-mono text-xs leading-5 text-neutral-900 dark:border-neutral-700 dark:bg-neutral-950 dark:text-neutral-100">
                {text}
              </pre>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <Button
                  onClick={() =>
                    void copyText(text).then(
                      () => toast.success(`Copied the lines for ${entry.label}`),
                      (error: Error) => toast.error(`Not copied: ${error.message}`),
                    )
                  }
                >
                  Copy
                </Button>
                <p className="text-sm text-neutral-600 dark:text-neutral-400">
                  {refused ? (
                    <span role="status" aria-label={`Last exchange from ${entry.label} failed`} className="text-red-700 dark:text-red-400">
                      Last exchange failed (<LocalTime ms={refused.at} />, {refused.status}): {refused.message}
                    </span>
                  ) : exchange ? (
                    <>
                      Last exchange:{' '}
                      <Link href={`/sessions/${encodeURIComponent(exchange.id)}`} className="underline">
                        {exchange.title}
                      </Link>{' '}
                      <LocalTime ms={exchange.updatedAt} />
                    </>
                  ) : (
                    `No exchange from ${entry.label} recorded yet.`
                  )}
                </p>
              </div>
            </Tabs.Content>
          );
        })}
      </Tabs.Root>
    </div>
  );
}

/**
 * Beside the lines, when they cannot work yet: with our token as the API key the proxy calls the
 * provider with the key stored here, and none is. Both ways out, on the spot: store one, or keep
 * the agent's own key and send the token in a header.
 */
function NoKeyStored({ agent, instanceKey }: { agent: AgentTab; instanceKey: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const provider = agent.upstream === 'anthropic' ? 'Anthropic' : 'OpenAI';
  const save = useMutation(
    trpc.proxy.setUpstream.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.proxy.listUpstreams.queryKey() }),
    }),
  );

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const key = String(new FormData(form).get('key') ?? '').trim();
    setError(null);
    if (!key) return setError(`Paste your ${provider} key first.`);
    try {
      await save.mutateAsync({ name: agent.upstream, kind: agent.upstream, key });
      form.reset();
      toast.success(`${provider} key stored`);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  return (
    <section aria-label={`No ${provider} key stored`} className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      {instanceKey ? (
        <p>
          <strong>No {provider} key of your own is stored</strong>, so the proxy uses the instance&apos;s {provider} key, which the admin lets you use,
          when the token is the API key. Store your own key here to use it instead, or keep your own key in the agent and send the token beside it
          {agent.id === 'claude-code' ? ' (the commented header line below)' : ` (header ${MEMORY_TOKEN_HEADER})`}.
        </p>
      ) : (
        <p>
          <strong>No {provider} key is stored</strong>, so these lines are refused until there is one: the proxy calls {provider} with your stored key when the
          token is the API key. Store your key here, or keep your own key in the agent and send the token beside it
          {agent.id === 'claude-code' ? ' (the commented header line below)' : ` (header ${MEMORY_TOKEN_HEADER})`}.
        </p>
      )}
      <form onSubmit={(event) => void submit(event)} className="flex flex-wrap items-end gap-2" aria-label={`Store a ${provider} key`}>
        <TextField label={`Your ${provider} key`} name="key" type="password" autoComplete="off" className="min-w-48 flex-1" />
        <Button type="submit" variant="secondary" disabled={save.isPending}>
          Store key
        </Button>
      </form>
      <FormMessage error={error} />
    </section>
  );
}
