'use client';

import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';
import { toast } from 'sonner';

/** Copies a message's text as it was written (its Markdown), and says so for a moment. */
export function CopyMessage({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      aria-label="Copy message"
      title="Copy message"
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => setCopied(true),
          (error: unknown) => toast.error(`Could not copy: ${(error as Error).message}`),
        )
      }
      className="inline-flex items-center gap-1 rounded-md px-2 py-1 text-xs text-neutral-600 hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none dark:text-neutral-400 dark:hover:bg-neutral-800"
    >
      {copied ? <Check size={16} aria-hidden /> : <Copy size={16} aria-hidden />}
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}
