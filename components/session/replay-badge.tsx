import { GitCompare, Shuffle } from 'lucide-react';
import Link from 'next/link';
import { compareHref } from '@/components/compare/compare-href';

/**
 * On a replayed answer, beside its ‹ n/m ›: the branch is named after the model that gave it, and
 * "Compare with the original" opens the two answers side by side (DESIGN §14 Replay and Compare).
 */
export function ReplayBadge({ sessionId, messageId, of, model }: { sessionId: string; messageId: string; of: string; model: string }) {
  return (
    <>
      <span className="inline-flex max-w-full min-w-0 items-center gap-1 rounded-md bg-violet-50 px-2 py-0.5 text-xs text-violet-900 dark:bg-violet-950 dark:text-violet-200">
        <Shuffle size={12} aria-hidden />
        <span className="truncate">
          Replayed with <span className="font-medium">{model}</span>
        </span>
      </span>
      <Link
        href={compareHref(sessionId, of, messageId)}
        className="inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-xs text-violet-900 underline-offset-2 hover:underline focus-visible:outline-2 dark:text-violet-200"
      >
        <GitCompare size={12} aria-hidden />
        Compare with the original
      </Link>
    </>
  );
}
