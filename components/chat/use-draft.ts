'use client';

import { useCallback, useEffect, useState } from 'react';

/**
 * An unsent message kept in the browser (localStorage), so a reload keeps it; cleared once sent.
 * Read after mount: the server renders the empty box, the browser then fills it in.
 */
export interface Draft {
  text: string;
  projectId: string;
}

const EMPTY: Draft = { text: '', projectId: 'default' };

export function draftKey(scope: string): string {
  return `entity-memory.draft.${scope}`;
}

export function useDraft(scope: string): { draft: Draft; update: (patch: Partial<Draft>) => void; clear: () => void } {
  const key = draftKey(scope);
  const [draft, setDraft] = useState<Draft>(EMPTY);

  useEffect(() => {
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
    try {
      window.localStorage.removeItem(key);
    } catch {
      // nothing stored
    }
  }, [key]);

  return { draft, update, clear };
}
