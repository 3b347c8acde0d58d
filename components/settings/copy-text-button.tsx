'use client';

import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';

/**
 * Copies `text` and says so. The clipboard needs a secure origin (https or localhost): elsewhere
 * the button says why nothing was copied, and the text stays on the page to select by hand.
 */
export function CopyTextButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2_000);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }

  return (
    <span className="inline-flex items-center gap-2">
      <Button variant="secondary" onClick={() => void copy()}>
        {state === 'copied' ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
        {label}
      </Button>
      <span role="status" className="text-xs text-neutral-600 dark:text-neutral-400">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copying needs https or localhost: select the text instead' : ''}
      </span>
    </span>
  );
}
