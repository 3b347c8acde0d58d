/**
 * Where unsent messages live in the browser: one localStorage entry per user and scope, so the
 * next person signed in at the same browser never sees another's draft, and all of them go at
 * sign-out. Entries of the old, unkeyed form (`entity-memory.draft.<scope>`) share the prefix and
 * go with them.
 */
const DRAFT_PREFIX = 'entity-memory.draft.';

export function draftKey(userId: string, scope: string): string {
  return `${DRAFT_PREFIX}${encodeURIComponent(userId)}/${scope}`;
}

/** Removes every draft kept in this storage, whoever wrote it; storage that refuses is left as it is. */
export function forgetDrafts(storage: Pick<Storage, 'length' | 'key' | 'removeItem'>): void {
  try {
    const keys: string[] = [];
    for (let index = 0; index < storage.length; index++) {
      const key = storage.key(index);
      if (key?.startsWith(DRAFT_PREFIX)) keys.push(key);
    }
    for (const key of keys) storage.removeItem(key);
  } catch {
    // private mode: nothing was stored
  }
}
