'use client';

import { ArrowDown } from 'lucide-react';
import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/** How close to the bottom (px) still counts as reading the end. */
const END_SLACK = 48;

interface ChatViewState {
  /** the message ids the list shows now: the streaming reply steps aside once its message is among them */
  shown: ReadonlySet<string>;
  setShown(ids: ReadonlySet<string>): void;
  awayFromEnd: boolean;
  scrollToEnd(): void;
}

const ChatViewContext = createContext<ChatViewState | null>(null);

/** The scroll container of an element: the nearest ancestor that scrolls (the shell's <main>). */
function scrollerOf(element: HTMLElement): HTMLElement {
  for (let node = element.parentElement; node; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node);
    if (overflowY === 'auto' || overflowY === 'scroll') return node;
  }
  return document.scrollingElement as HTMLElement;
}

/**
 * The open session's chat: while the view is at the end it follows what grows (a streaming
 * reply, a new message); scrolling up stops that and offers "Scroll to bottom", reaching the end
 * again resumes it. Its children pin the composer (`sticky bottom-0`). `followFromStart` false:
 * the page opened at one message (`?m=`), so the view starts there and follows only once at the end.
 */
export function ChatView({ children, followFromStart = true }: { children: ReactNode; followFromStart?: boolean }) {
  const content = useRef<HTMLDivElement>(null);
  // Opened at a message (a search hit): stay there until the reader goes to the end.
  const following = useRef(followFromStart);
  const [awayFromEnd, setAwayFromEnd] = useState(false);
  const [shown, setShown] = useState<ReadonlySet<string>>(() => new Set());

  useEffect(() => {
    const element = content.current;
    if (!element) return;
    const scroller = scrollerOf(element);
    let lastTop = scroller.scrollTop;
    const distance = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight;
    const onScroll = () => {
      const atEnd = distance() < END_SLACK;
      // Only a move up is the reader's: growth below never moves scrollTop, and following moves it down.
      if (atEnd) following.current = true;
      else if (scroller.scrollTop < lastTop - 1) following.current = false;
      lastTop = scroller.scrollTop;
      setAwayFromEnd(!atEnd);
    };
    const observer = new ResizeObserver(() => {
      if (following.current) {
        scroller.scrollTop = scroller.scrollHeight;
        lastTop = scroller.scrollTop;
      }
      setAwayFromEnd(distance() >= END_SLACK);
    });
    observer.observe(element);
    scroller.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      observer.disconnect();
      scroller.removeEventListener('scroll', onScroll);
    };
  }, []);

  const scrollToEnd = useCallback(() => {
    const element = content.current;
    if (!element) return;
    following.current = true;
    const scroller = scrollerOf(element);
    scroller.scrollTo({ top: scroller.scrollHeight, behavior: 'smooth' });
  }, []);

  return (
    <ChatViewContext.Provider value={{ shown, setShown, awayFromEnd, scrollToEnd }}>
      <div ref={content}>{children}</div>
    </ChatViewContext.Provider>
  );
}

/** Tells the chat view which messages the list shows (a no-op outside one). */
export function useReportShownMessages(ids: readonly string[]): void {
  const setShown = useContext(ChatViewContext)?.setShown;
  const key = ids.join(' ');
  // Before paint: the streaming reply and the message it became never show together or not at all.
  useLayoutEffect(() => {
    setShown?.(new Set(key === '' ? [] : key.split(' ')));
  }, [key, setShown]);
}

export function useShownMessages(): ReadonlySet<string> | null {
  return useContext(ChatViewContext)?.shown ?? null;
}

/** "Scroll to bottom", over the composer, while the view is away from the end. */
export function ScrollToBottom() {
  const view = useContext(ChatViewContext);
  if (!view?.awayFromEnd) return null;
  return (
    <button
      type="button"
      onClick={view.scrollToEnd}
      className="absolute -top-12 left-1/2 inline-flex -translate-x-1/2 items-center gap-1 rounded-full border border-neutral-200 bg-white px-3 py-1.5 text-sm text-neutral-700 shadow-md hover:bg-neutral-50 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-200 dark:hover:bg-neutral-800"
    >
      <ArrowDown size={16} aria-hidden />
      Scroll to bottom
    </button>
  );
}
