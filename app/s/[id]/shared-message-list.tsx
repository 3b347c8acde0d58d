'use client';

import { SessionMessages } from '@/components/session/session-messages';
import type { RenderedMessage } from '@/components/session/types';
import { loadSharedPage } from './actions';

/** The shared branch paged as the session page pages its own: the newest page first, older ones on scroll. */
export function SharedMessageList({ link, initial }: { link: string; initial: RenderedMessage[] }) {
  return <SessionMessages sessionId={link} initial={initial} loadPage={loadSharedPage} />;
}
