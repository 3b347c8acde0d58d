'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { LIST_COMMAND_EVENT, type ListCommand } from '@/components/sessions/session-list';

function typingIn(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || typeof element.closest !== 'function') return false;
  return element.isContentEditable || element.closest('input, textarea, select, [contenteditable="true"]') !== null;
}

/** The list the keys act on: the one holding the focus, else the page's own (Chats), else the sidebar's. */
function targetList(): HTMLElement | null {
  const focused = document.activeElement?.closest<HTMLElement>('[data-session-list]');
  if (focused) return focused;
  // One selector with both would list them in document order, the sidebar's first.
  const visible = (selector: string) => [...document.querySelectorAll<HTMLElement>(selector)].find((element) => element.offsetParent !== null);
  return visible('main [data-session-list]') ?? visible('[data-session-list]') ?? null;
}

function send(command: ListCommand): void {
  targetList()?.dispatchEvent(new CustomEvent(LIST_COMMAND_EVENT, { detail: command }));
}

/**
 * Global shortcuts (listed in the `?` overlay). Keystrokes in fields, with Ctrl/Alt/Meta, or while
 * a menu or dialog is open are left alone.
 */
export function KeyboardShortcuts({ onShowShortcuts }: { onShowShortcuts(): void }) {
  const router = useRouter();
  const show = useRef(onShowShortcuts);
  show.current = onShowShortcuts;

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      if (document.querySelector('[role="menu"], [role="dialog"], [role="alertdialog"]')) return;
      let handled = true;
      switch (event.key) {
        case '?':
          show.current();
          break;
        case 'n':
          router.push('/');
          break;
        case '/': {
          const search = document.querySelector<HTMLInputElement>('input[type="search"]');
          if (search) search.focus();
          else router.push('/chats?focus=search');
          break;
        }
        case 'j':
          send({ command: 'move', delta: 1 });
          break;
        case 'k':
          send({ command: 'move', delta: -1 });
          break;
        case 'r':
        case 'F2':
          send({ command: 'rename' });
          break;
        case 'Delete':
          send({ command: 'delete' });
          break;
        default:
          handled = false;
      }
      // Arrows are the list's own (it moves the focus when a row has it); elsewhere they scroll.
      if (handled) event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [router]);
  return null;
}
