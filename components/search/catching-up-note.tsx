import type { SearchPage } from './types';

/** Said while the index is rebuilt: what is found so far, and how far it has got. */
export function CatchingUpNote({ status }: { status: SearchPage['status'] | undefined }) {
  if (status?.state !== 'catching_up') return null;
  return (
    <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
      The search index is catching up ({status.done.toLocaleString()} of {status.total.toLocaleString()} sessions read): some messages are not found yet.
    </p>
  );
}
