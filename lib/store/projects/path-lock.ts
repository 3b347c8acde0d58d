/**
 * In-process mutual exclusion by key (a project folder, a recovery record). Commits, undo and
 * redo in the same repository must not interleave: each reads HEAD and moves it.
 */
const tails = new Map<string, Promise<unknown>>();

export async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => current);
  tails.set(key, tail);
  try {
    await previous.catch(() => {});
    return await fn();
  } finally {
    release();
    // Forget the key once nobody queued behind us, so the map does not grow with every folder.
    if (tails.get(key) === tail) tails.delete(key);
  }
}
