'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';
import { ShareLinkItem } from './share-link-item';
import { audienceOf } from './share-text';

/** Settings' "Share links": every link of the owner, by session, with the same actions as the dialog. */
export function ShareList({ initial }: { initial: RouterOutputs['share']['list'] }) {
  const trpc = useTRPC();
  const { data } = useQuery(trpc.share.list.queryOptions(undefined, { initialData: initial }));
  const { mode, links } = data ?? initial;
  return (
    <div className="space-y-3">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        {audienceOf(mode)} Make a link from a session&apos;s menu (Share). Revoked or expired links open nothing, from the next request on.
      </p>
      {links.length === 0 ? (
        <p className="text-sm text-neutral-600 dark:text-neutral-400">You have not shared any session.</p>
      ) : (
        <ul aria-label="Your share links" className="space-y-3">
          {links.map((link) => (
            <li key={link.id} className="space-y-1">
              <Link href={`/sessions/${encodeURIComponent(link.sessionId)}`} className="text-sm font-medium text-blue-700 hover:underline dark:text-blue-400">
                {link.sessionTitle}
              </Link>
              <ul>
                <ShareLinkItem link={link} disabled={mode === 'off'} />
              </ul>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
