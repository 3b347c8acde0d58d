'use client';

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useReportShownMessages } from '@/components/chat/chat-view';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { ReloadMessagesContext } from './messages-context';
import { mergeNewest, scrollParentOf } from './merge-window';
import type { LoadMessagePage, RenderedMessage } from './types';

/** How close to the bottom (px) still counts as reading the newest message. */
const FOLLOW_SLACK = 120;

/**
 * The branch as server-rendered pages: it opens on the newest page scrolled to the end, loads the
 * page before the oldest shown as the top comes near (keeping what is on screen where it was),
 * and fetches the newest page again when an agent appends to this session or the branch changes.
 */
export function SessionMessages({
  sessionId,
  initial,
  loadPage,
  renderedAt,
}: {
  sessionId: string;
  initial: RenderedMessage[];
  loadPage: LoadMessagePage;
  /** the event id the page was rendered at: appends after it reload the newest page */
  renderedAt?: string;
}) {
  const [messages, setMessages] = useState(initial);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const listRef = useRef<HTMLDivElement>(null);
  const topRef = useRef<HTMLDivElement>(null);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  /** scroll state before a page was put above, restored once it is in the DOM */
  const keepPosition = useRef<{ top: number; height: number } | null>(null);
  const stickToEnd = useRef(true);
  const olderInFlight = useRef(false);
  const newest = useRef<{ running: Promise<void> | null; again: boolean }>({ running: null, again: false });
  const hasOlder = messages[0]?.parentId != null;
  /** set once the list is scrolled to its end on opening; older pages wait for it */
  const [ready, setReady] = useState(false);
  useReportShownMessages(messages.map((message) => message.id));

  const scroller = useCallback(() => scrollParentOf(listRef.current), []);
  const atEnd = useCallback(() => {
    const element = scroller();
    return element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_SLACK;
  }, [scroller]);

  // A new render from the server (router.refresh by anyone) joins the list like a fetched page.
  const firstRender = useRef(true);
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    stickToEnd.current = atEnd();
    setMessages((current) => mergeNewest(current, initial));
  }, [initial, atEnd]);

  useLayoutEffect(() => {
    const element = scroller();
    if (keepPosition.current) {
      element.scrollTop = keepPosition.current.top + (element.scrollHeight - keepPosition.current.height);
      keepPosition.current = null;
    } else if (stickToEnd.current) {
      element.scrollTop = element.scrollHeight;
      stickToEnd.current = false;
    }
  }, [messages, scroller]);

  const loadOlder = useCallback(async () => {
    const oldest = messagesRef.current[0];
    if (olderInFlight.current || !oldest?.parentId) return;
    olderInFlight.current = true;
    setLoadingOlder(true);
    try {
      const page = await loadPage({ sessionId, before: oldest.id });
      const element = scroller();
      keepPosition.current = { top: element.scrollTop, height: element.scrollHeight };
      // Only if the list still starts where the page ends (a branch switch may have replaced it).
      setMessages((current) => (current[0]?.id === oldest.id ? [...page, ...current] : current));
    } catch (error) {
      toast.error(`Could not load older messages: ${(error as Error).message}`);
    } finally {
      olderInFlight.current = false;
      setLoadingOlder(false);
    }
  }, [loadPage, scroller, sessionId]);

  const reload = useCallback((): Promise<void> => {
    const state = newest.current;
    if (state.running) {
      state.again = true;
      return state.running;
    }
    const run = async () => {
      do {
        state.again = false;
        const page = await loadPage({ sessionId });
        stickToEnd.current = atEnd();
        setMessages((current) => mergeNewest(current, page));
      } while (state.again);
    };
    state.running = run()
      .catch((error: unknown) => {
        toast.error(`Could not load new messages: ${(error as Error).message}`);
      })
      .finally(() => {
        state.running = null;
      });
    return state.running;
  }, [atEnd, loadPage, sessionId]);

  useLiveEvents(
    (event) => {
      if (event.type === 'message_appended' && event.data.sessionId === sessionId) void reload();
      else if (event.type === 'resync') void reload();
    },
    { since: renderedAt },
  );

  // Opening: the newest message in view, again after the router's own scroll on a client navigation.
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const element = scroller();
      element.scrollTop = element.scrollHeight;
      setReady(true);
    });
    return () => cancelAnimationFrame(frame);
  }, [scroller]);

  // Older pages load before the top is reached; checked again after each page, in case it is still in view.
  useEffect(() => {
    const sentinel = topRef.current;
    if (!sentinel || !hasOlder || !ready) return;
    const element = scroller();
    const root = element === document.scrollingElement ? null : element;
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && void loadOlder(), {
      root,
      rootMargin: '800px 0px 0px 0px',
    });
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [hasOlder, loadOlder, scroller, messages, ready]);

  return (
    <ReloadMessagesContext.Provider value={reload}>
      <div ref={listRef} className="[overflow-anchor:none]">
        <div ref={topRef} aria-hidden className="h-px" />
        {hasOlder ? (
          <p role="status" className="py-2 text-center text-xs text-neutral-500">
            {loadingOlder ? 'Loading older messages…' : 'Scroll up for older messages'}
          </p>
        ) : messages.length > 0 ? (
          <p className="py-2 text-center text-xs text-neutral-500">Start of the conversation</p>
        ) : (
          <p className="py-12 text-center text-sm text-neutral-500">No messages yet.</p>
        )}
        <div className="space-y-6">
          {messages.map((message) => (
            <div key={message.id}>{message.node}</div>
          ))}
        </div>
      </div>
    </ReloadMessagesContext.Provider>
  );
}
