'use client';

import { useCallback, useEffect, useState } from 'react';
import { useSignedInUserId } from '@/components/auth/signed-in-user';
import { draftKey } from './draft-storage';

/**
 * An unsent message kept in the browser (localStorage, per user: draft-storage.ts), so a reload
 * keeps it; cleared once sent and at sign-out. Read after mount: the server renders the empty
 * box, the browser then fills it in. Outside the signed-in frame it lives in memory only.
 */
export interface Draft {
  text: string;
  projectId: string;
}

const EMPTY: Draft = { text: '', projectId: 'default' };

export function useDraft(scope: string): { draft: Draft; update: (patch: Partial<Draft>) => void; clear: () => void } {
  const userId = useSignedInUserId();
  const key = userId === null ? null : draftKey(userId, scope);
  const [draft, setDraft] = useState<Draft>(EMPTY);

  useEffect(() => {
    if (key === null) return;
    try {
      const stored = JSON.parse(window.localStorage.getItem(key) ?? 'null') as Partial<Draft> | null;
      if (stored) setDraft({ text: typeof stored.text === 'string' ? stored.text : '', projectId: typeof stored.projectId === 'string' ? stored.projectId : 'default' });
    } catch {
      // private mode or a broken entry: start empty
    }
  }, [key]);

  const update = useCallback(
    (patch: Partial<Draft>) => {
      setDraft((current) => {
        const next = { ...current, ...patch };
        if (key === null) return next;
        try {
          if (next.text === '' && next.projectId === 'default') window.localStorage.removeItem(key);
          else window.localStorage.setItem(key, JSON.stringify(next));
        } catch {
          // storage full or refused: the draft lives in memory only
        }
        return next;
      });
    },
    [key],
  );

  const clear = useCallback(() => {
    setDraft(EMPTY);
    if (key === null) return;
    try {
      window.localStorage.removeItem(key);
    } catch {
      // nothing stored
    }
  }, [key]);

  return { draft, update, clear };
}
