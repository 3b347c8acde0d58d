'use client';

import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { LIVE_EVENT_TYPES, type LiveEvent } from '@/trpc/live-events';

type Listener = (event: LiveEvent) => void;

interface LiveEvents {
  subscribe(listener: Listener): () => void;
}

const LiveEventsContext = createContext<LiveEvents | null>(null);

/**
 * One EventSource per tab for every live view. The browser reconnects a dropped stream by itself
 * and sends Last-Event-ID, so the server replays what was missed (or answers `resync`). When the
 * stream is refused outright (signed out, too many streams) the browser gives up: we open a new one
 * after a pause and announce `resync`, since a new EventSource cannot resume.
 */
export function LiveEventsProvider({ since, children }: { since?: string; children: ReactNode }) {
  const listeners = useRef(new Set<Listener>());
  const [value] = useState<LiveEvents>(() => ({
    subscribe(listener) {
      listeners.current.add(listener);
      return () => listeners.current.delete(listener);
    },
  }));

  useEffect(() => {
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let retryDelay = 1_000;
    let stopped = false;
    const dispatch = (event: LiveEvent) => {
      for (const listener of listeners.current) listener(event);
    };

    const open = (fresh: boolean) => {
      // The first stream resumes from the id the page was rendered at, so nothing between is lost.
      source = new EventSource(!fresh && since ? `/api/events?since=${encodeURIComponent(since)}` : '/api/events');
      source.onopen = () => {
        retryDelay = 1_000;
        if (fresh) dispatch({ type: 'resync', data: {} });
      };
      for (const type of LIVE_EVENT_TYPES) {
        source.addEventListener(type, (message) => {
          const data: unknown = JSON.parse((message as MessageEvent<string>).data);
          dispatch({ type, data } as LiveEvent);
        });
      }
      source.onerror = () => {
        if (source?.readyState !== EventSource.CLOSED || stopped) return;
        retryTimer = setTimeout(() => open(true), retryDelay);
        retryDelay = Math.min(retryDelay * 2, 30_000);
      };
    };
    open(false);
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      source?.close();
    };
    // `since` is the render's starting point: later renders must not reopen the stream.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return <LiveEventsContext.Provider value={value}>{children}</LiveEventsContext.Provider>;
}

/** Calls `listener` for every live event of this user while the component is mounted. */
export function useLiveEvents(listener: Listener): void {
  const live = useContext(LiveEventsContext);
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => live?.subscribe((event) => latest.current(event)), [live]);
}
