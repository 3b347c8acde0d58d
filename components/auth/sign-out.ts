import { signOut } from 'next-auth/react';
import { forgetDrafts } from '@/components/chat/draft-storage';

/** Signs out and leaves nothing unsent behind for the next person at this browser. */
export function signOutAndForget(): Promise<void> {
  forgetDrafts(window.localStorage);
  return signOut({ callbackUrl: '/signin' });
}
