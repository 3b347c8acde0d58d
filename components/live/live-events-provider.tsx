'use client';

import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { LIVE_EVENT_TYPES, type LiveEvent } from '@/trpc/live-events';

type Listener = (event: LiveEvent) => void;

interface LiveEvents {
  /** `since`: an event id a page was rendered at; what this tab received after it is replayed first */
  subscribe(listener: Listener, since?: string): () => void;
}

/** Events kept for views that mount after they arrived (a client navigation while a turn runs). */
const RECENT_EVENTS = 500;

interface Received {
  boot: string;
  seq: number;
  event: LiveEvent;
}

function parseEventId(id: string | undefined): { boot: string; seq: number } | null {
  const match = /^(.+)-(\d+)$/.exec(id ?? '');
  return match ? { boot: match[1]!, seq: Number(match[2]) } : null;
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
  const recent = useRef<Received[]>([]);
  const [value] = useState<LiveEvents>(() => ({
    subscribe(listener, since) {
      const from = parseEventId(since);
      if (from) {
        for (const received of recent.current) {
          if (received.boot === from.boot && received.seq > from.seq) listener(received.event);
        }
      }
      listeners.current.add(listener);
      return () => listeners.current.delete(listener);
    },
  }));

  useEffect(() => {
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let retryDelay = 1_000;
    let stopped = false;
    const dispatch = (event: LiveEvent, id?: string) => {
      const parsed = parseEventId(id);
      if (parsed) {
        recent.current.push({ ...parsed, event });
        if (recent.current.length > RECENT_EVENTS) recent.current.splice(0, recent.current.length - RECENT_EVENTS);
      }
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
          const { data, lastEventId } = message as MessageEvent<string>;
          dispatch({ type, data: JSON.parse(data) as unknown } as LiveEvent, lastEventId);
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

/**
 * Calls `listener` for every live event of this user while the component is mounted. A view
 * rendered on the server passes `since` (the event id it was rendered at, from the hub), and first
 * gets what this tab received after that: nothing that happened between the render and the mount
 * is lost.
 */
export function useLiveEvents(listener: Listener, options: { since?: string } = {}): void {
  const live = useContext(LiveEventsContext);
  const latest = useRef(listener);
  latest.current = listener;
  const since = useRef(options.since);
  useEffect(() => live?.subscribe((event) => latest.current(event), since.current), [live]);
}
