import { Shuffle } from 'lucide-react';

/** On a replayed answer, beside its ‹ n/m ›: the branch is named after the model that gave it (DESIGN §14 Replay). */
export function ReplayBadge({ model }: { model: string }) {
  return (
    <span className="inline-flex max-w-full min-w-0 items-center gap-1 rounded-md bg-violet-50 px-2 py-0.5 text-xs text-violet-900 dark:bg-violet-950 dark:text-violet-200">
      <Shuffle size={12} aria-hidden />
      <span className="truncate">
        Replayed with <span className="font-medium">{model}</span>
      </span>
    </span>
  );
}
