'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link2, RefreshCw, Trash2 } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import { toast } from 'sonner';
import { LocalTime } from '@/components/session/local-time';
import { CopyTextButton } from '@/components/settings/copy-text-button';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { useTRPC } from '@/trpc/client';
import { EXPIRY_CHOICES, scopeOf, type OwnedShareLink, type ShareExpiry } from './share-text';

const FIELD =
  'rounded-md border border-neutral-300 bg-white px-2 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:border-neutral-700 dark:bg-neutral-900';

/** The page's origin once mounted (the server's first paint shows the path alone). */
function useOrigin(): string {
  const [origin, setOrigin] = useState('');
  useEffect(() => setOrigin(window.location.origin), []);
  return origin;
}

/**
 * One share link with everything its owner does to it: copy it, change its expiry, switch it
 * between live and pinned, move it to the newest turn (Update), revoke it. The same in the
 * "Share session" dialog and in Settings.
 */
export function ShareLinkItem({ link, disabled = false }: { link: OwnedShareLink; disabled?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const origin = useOrigin();
  const labelId = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.share.list.pathKey() });
  const update = useMutation(
    trpc.share.update.mutationOptions({
      onSuccess: async (next, input) => {
        await refresh();
        if (input.toLatest) toast.success(`The link now shows turn ${next.turn}.`);
      },
      onError: (error) => toast.error(`The link was not changed: ${error.message}`),
    }),
  );
  const revoke = useMutation(
    trpc.share.revoke.mutationOptions({
      onSuccess: async () => {
        await refresh();
        toast.success('Link revoked: it opens nothing any more.');
      },
      onError: (error) => toast.error(`The link was not revoked: ${error.message}`),
    }),
  );
  const busy = disabled || update.isPending || revoke.isPending;
  const url = `${origin}${link.path}`;
  return (
    <li aria-labelledby={labelId} className="space-y-2 rounded-md border border-neutral-200 p-3 dark:border-neutral-800">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
        <Link2 size={16} aria-hidden className="shrink-0 text-neutral-500" />
        <span id={labelId} className="font-medium">
          {scopeOf(link)}
        </span>
        <span className={cn('text-xs', link.expired ? 'font-medium text-red-700 dark:text-red-400' : 'text-neutral-500 dark:text-neutral-400')}>
          {link.expired ? (
            'Expired'
          ) : link.expiresAt === null ? (
            'Never expires'
          ) : (
            <>
              Expires <LocalTime ms={link.expiresAt} />
            </>
          )}
        </span>
      </div>
      <input
        readOnly
        aria-label="Share link"
        value={url}
        onFocus={(event) => event.currentTarget.select()}
        className={cn(FIELD, 'w-full font-mono text-xs')}
      />
      <div className="flex flex-wrap items-center gap-2">
        <CopyTextButton text={url} label="Copy link" />
        <label className="inline-flex items-center gap-1.5 text-sm">
          <span className="text-neutral-600 dark:text-neutral-400">Expiry</span>
          <select
            aria-label="Change expiry"
            className={FIELD}
            disabled={busy}
            value=""
            onChange={(event) => {
              const expires = event.target.value as ShareExpiry;
              if (expires) update.mutate({ id: link.id, expires });
            }}
          >
            <option value="" disabled>
              Change…
            </option>
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.value === 'never' ? 'Never' : `${choice.label} from now`}
              </option>
            ))}
          </select>
        </label>
        {link.scope === 'turn' ? null : (
          <label className="inline-flex items-center gap-1.5 text-sm">
            <input
              type="checkbox"
              checked={link.scope === 'live'}
              disabled={busy}
              onChange={(event) => update.mutate({ id: link.id, live: event.target.checked })}
              className="size-4 accent-blue-600"
            />
            Live
          </label>
        )}
        {link.scope === 'live' ? null : (
          <Button variant="secondary" disabled={busy} onClick={() => update.mutate({ id: link.id, toLatest: true })} title="Show the conversation up to its newest turn, at the same address">
            <RefreshCw size={14} aria-hidden />
            Update
          </Button>
        )}
        <Button variant="danger" disabled={busy} onClick={() => revoke.mutate({ id: link.id })} className="ml-auto">
          <Trash2 size={14} aria-hidden />
          Revoke
        </Button>
      </div>
    </li>
  );
}
