'use client';

import { createContext, useContext, type ReactNode } from 'react';

const SignedInUserContext = createContext<string | null>(null);

/** The signed-in user's id for what the browser keeps per person (drafts). */
export function SignedInUserProvider({ userId, children }: { userId: string; children: ReactNode }) {
  return <SignedInUserContext.Provider value={userId}>{children}</SignedInUserContext.Provider>;
}

/** Null outside the signed-in frame. */
export function useSignedInUserId(): string | null {
  return useContext(SignedInUserContext);
}
