'use client';

/** How long a deleted session can be brought back before it is really deleted. */
export const DELETE_GRACE_MS = 5_000;

interface Pending {
  timer: ReturnType<typeof setTimeout>;
  run(): Promise<void>;
}

/**
 * Deletes waiting out their grace period, for the whole tab (a navigation does not drop them).
 * Leaving the page carries them out at once, with a request that outlives the page.
 */
const pending = new Map<string, Pending>();
let listening = false;

function flushOnLeave() {
  for (const [id, entry] of pending) {
    clearTimeout(entry.timer);
    // tRPC's plain POST: the body is the input. keepalive lets it finish after the page is gone.
    void fetch('/api/trpc/session.delete', { method: 'POST', keepalive: true, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }) });
  }
  pending.clear();
}

/** Runs `run` after the grace period unless `cancelDelete(id)` comes first. */
export function deferDelete(id: string, run: () => Promise<void>): void {
  if (!listening && typeof window !== 'undefined') {
    window.addEventListener('pagehide', flushOnLeave);
    listening = true;
  }
  cancelDelete(id);
  const timer = setTimeout(() => {
    pending.delete(id);
    void run();
  }, DELETE_GRACE_MS);
  pending.set(id, { timer, run });
}

/** True when the delete was still waiting (and now will not happen). */
export function cancelDelete(id: string): boolean {
  const entry = pending.get(id);
  if (!entry) return false;
  clearTimeout(entry.timer);
  pending.delete(id);
  return true;
}
