'use client';

import { useSessionCacheSync } from './use-session-cache-sync';

/** Mounted once in the signed-in layout. */
export function SessionCacheSync() {
  useSessionCacheSync();
  return null;
}
