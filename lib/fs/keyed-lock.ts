/**
 * Serialises work per key: writes to one session run one after another, different sessions
 * never wait on each other. Keys disappear when idle so the map does not grow.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T> | T): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    try {
      // a tail never rejects today; the catch keeps one failed holder from blocking the key
      await previous.catch(() => {});
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  get size(): number {
    return this.tails.size;
  }
}

/**
 * The process-wide lock for project folders, recovery records and projects.json: commits, undo
 * and redo in one repository must not interleave (each reads HEAD and moves it).
 */
export const processLocks = new KeyedLock();
