'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useReportShownMessages } from '@/components/chat/chat-view';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { ReloadMessagesContext } from './messages-context';
import { mergeNewest, scrollParentOf } from './merge-window';
import { loadErrorText } from './load-error-text';
import type { LoadMessagePage, MessageAnchor, RenderedMessage } from './types';

/** How close to the bottom (px) still counts as reading the newest message. */
const FOLLOW_SLACK = 120;

/**
 * The branch as server-rendered pages: it opens on the newest page scrolled to the end, loads the
 * page before the oldest shown as the top comes near (keeping what is on screen where it was),
 * and fetches the newest page again when an agent appends to this session or the branch changes.
 * Opened at a message (`anchor`, a search hit) it shows the page around it, scrolled to it, on the
 * branch it is on, and loads newer pages as the bottom comes near until that branch's tip.
 */
export function SessionMessages({
  sessionId,
  initial,
  loadPage,
  renderedAt,
  anchor,
}: {
  sessionId: string;
  initial: RenderedMessage[];
  loadPage: LoadMessagePage;
  /** the event id the page was rendered at: appends after it reload the newest page */
  renderedAt?: string;
  anchor?: MessageAnchor;
}) {
  const [messages, setMessages] = useState(initial);
  const [loadingOlder, setLoadingOlder] = useState(false);
  /** opened at a message: whether the pages after it have been read up to its branch's tip */
  const [newerDone, setNewerDone] = useState(() => !anchor || initial[initial.length - 1]?.id === anchor.headId);
  const [loadingNewer, setLoadingNewer] = useState(false);
  const newerInFlight = useRef(false);
  const bottomRef = useRef<HTMLDivElement>(null);
  /** the branch read: the session head's, or the anchor's when that is another branch */
  const viewHead = anchor && !anchor.current ? anchor.headId : undefined;
  const listRef = useRef<HTMLDivElement>(null);
  const topRef = useRef<HTMLDivElement>(null);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  /** scroll state before a page was put above, restored once it is in the DOM */
  const keepPosition = useRef<{ top: number; height: number } | null>(null);
  const stickToEnd = useRef(!anchor);
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
      toast.error(`Could not load older messages: ${loadErrorText(error)}`);
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
        const page = await loadPage({ sessionId, ...(viewHead ? { headId: viewHead } : {}) });
        stickToEnd.current = atEnd();
        setMessages((current) => mergeNewest(current, page));
      } while (state.again);
    };
    state.running = run()
      .catch((error: unknown) => {
        toast.error(`Could not load new messages: ${loadErrorText(error)}`);
      })
      .finally(() => {
        state.running = null;
      });
    return state.running;
  }, [atEnd, loadPage, sessionId, viewHead]);

  // A branch switch or a sent message moves the head: an opened message's view gives way to the head's.
  const router = useRouter();
  const leaveAnchor = useCallback(async () => {
    router.replace(`/sessions/${encodeURIComponent(sessionId)}`, { scroll: false });
  }, [router, sessionId]);

  const newerDoneRef = useRef(newerDone);
  newerDoneRef.current = newerDone;
  useLiveEvents(
    (event) => {
      // Until the pages after an opened message are read, the newest part is not on screen to refresh.
      if (!newerDoneRef.current) return;
      if (event.type === 'message_appended' && event.data.sessionId === sessionId) void reload();
      else if (event.type === 'resync') void reload();
    },
    { since: renderedAt },
  );

  const loadNewer = useCallback(async () => {
    const newestShown = messagesRef.current[messagesRef.current.length - 1];
    if (newerInFlight.current || !anchor || !newestShown) return;
    newerInFlight.current = true;
    setLoadingNewer(true);
    try {
      const page = await loadPage({ sessionId, after: newestShown.id, headId: anchor.headId });
      setMessages((current) => (current[current.length - 1]?.id === newestShown.id ? [...current, ...page] : current));
      const last = page[page.length - 1];
      if (!last || last.id === anchor.headId) {
        setNewerDone(true);
        // Whatever was appended while the older part was on screen comes in now.
        if (anchor.current) void reload();
      }
    } catch (error) {
      toast.error(`Could not load newer messages: ${loadErrorText(error)}`);
    } finally {
      newerInFlight.current = false;
      setLoadingNewer(false);
    }
  }, [anchor, loadPage, reload, sessionId]);

  // Opening: the newest message in view (or the opened one at the top: centred, on a phone the
  // pinned composer below could cover it), again after the router's own scroll on a client navigation.
  const anchorId = anchor?.messageId;
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const element = scroller();
      const opened = anchorId ? listRef.current?.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(anchorId)}"]`) : null;
      if (opened) opened.scrollIntoView({ block: 'start' });
      else element.scrollTop = element.scrollHeight;
      setReady(true);
    });
    return () => cancelAnimationFrame(frame);
  }, [scroller, anchorId]);

  // Newer pages of an opened message's branch load before the bottom is reached.
  useEffect(() => {
    const sentinel = bottomRef.current;
    if (!sentinel || newerDone || !ready) return;
    const element = scroller();
    const root = element === document.scrollingElement ? null : element;
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && void loadNewer(), {
      root,
      rootMargin: '0px 0px 800px 0px',
    });
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [newerDone, loadNewer, scroller, messages, ready]);

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
    <ReloadMessagesContext.Provider value={anchor ? leaveAnchor : reload}>
      {/* busy until opened at its end (or at the opened message): the page scrolls once more then */}
      <div ref={listRef} data-message-list aria-busy={!ready} className="[overflow-anchor:none]">
        {anchor && !anchor.current ? (
          <p role="status" className="mb-3 rounded-md bg-blue-50 px-3 py-2 text-sm text-blue-900 dark:bg-blue-950/40 dark:text-blue-200">
            You are viewing another branch of this conversation; new messages continue the current one.{' '}
            <Link href={`/sessions/${encodeURIComponent(sessionId)}`} className="font-medium underline underline-offset-2">
              Go to the current branch
            </Link>
          </p>
        ) : null}
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
        {!newerDone ? (
          <p role="status" className="py-2 text-center text-xs text-neutral-500">
            {loadingNewer ? 'Loading newer messages…' : 'Scroll down for newer messages'}
          </p>
        ) : null}
        <div ref={bottomRef} aria-hidden className="h-px" />
      </div>
    </ReloadMessagesContext.Provider>
  );
}
