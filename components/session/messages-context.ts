'use client';

import { createContext, useContext } from 'react';

/** Lets a control inside a rendered message ask the list to show the current branch again. */
export const ReloadMessagesContext = createContext<() => Promise<void>>(async () => {});

export function useReloadMessages(): () => Promise<void> {
  return useContext(ReloadMessagesContext);
}
