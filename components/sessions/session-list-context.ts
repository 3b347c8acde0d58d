'use client';

import { createContext, useContext } from 'react';
import type { SessionActions } from './use-session-actions';
import type { SessionRow } from './session-types';

/** What a row needs from its list: the actions, which row is being renamed, the delete dialog. */
export interface SessionListControls {
  actions: SessionActions;
  renamingId: string | null;
  /** `from`: where the focus goes back to when the rename ends by key (the row's menu button or its link) */
  startRename(id: string, from?: 'menu' | 'link'): void;
  stopRename(restoreFocus?: boolean): void;
  requestDelete(row: SessionRow): void;
  selection?: { has(id: string): boolean; toggle(row: SessionRow, on: boolean): void };
}

export const SessionListContext = createContext<SessionListControls | null>(null);

export function useSessionListControls(): SessionListControls {
  const controls = useContext(SessionListContext);
  if (!controls) throw new Error('a session row renders inside a SessionList');
  return controls;
}
