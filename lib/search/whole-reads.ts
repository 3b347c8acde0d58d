/**
 * Sessions read again from the store, whole or some of their nodes (one created or imported, a large
 * message whose live notice is only its stub, one the feed names on catching up): a few at a time,
 * one read per session at once, a change that came during a read read once more after it, a read
 * that met a full disk tried again later. The index gives the read itself.
 */
/** sessions read again at once */
const FULL_READS = 4;

export interface WholeSessionReadsOptions {
  /** reads the session (`ids`, or all of it) into the index; true: the disk was full, try later */
  read(sessionId: string, ids: Set<string> | null): Promise<boolean>;
  /** the index is closed: what is left is dropped */
  stopped(): boolean;
  /** after a session was read: the index may move its feed position on */
  onRead(): void;
  retryMs: number;
}

export class WholeSessionReads {
  /** waiting or running: session id → the oldest feed record they stand for */
  private readonly fulls = new Map<string, number>();
  private readonly fullsWaiting: string[] = [];
  private fullsRunning = 0;
  private fullProgress = { done: 0, total: 0 };
  private fullsDrained: Promise<void> | null = null;
  private drainFulls: (() => void) | null = null;

  constructor(private readonly options: WholeSessionReadsOptions) {}

  /** sessions waiting or being read */
  get size(): number {
    return this.fulls.size;
  }

  /** reads done of those asked for since the last time none was left */
  get progress(): { done: number; total: number } {
    return this.fullProgress;
  }

  /** resolves once none is left; null when none is */
  get drained(): Promise<void> | null {
    return this.fullsDrained;
  }

  /** the oldest feed record a read waiting or running stands for, or null */
  oldestSeq(): number | null {
    let low: number | null = null;
    for (const seq of this.fulls.values()) low = low === null ? seq : Math.min(low, seq);
    return low;
  }

  /** Up to `maxMs` for the reads under way to end. */
  async settled(maxMs: number): Promise<void> {
    if (!this.fullsDrained) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.fullsDrained, new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)))]);
    clearTimeout(timer);
  }

  /**
   * `ids`: the nodes the next read takes, null for the whole session. `again`: what to read once
   * more after the read under way (undefined: nothing), for a change that may have come too late for it.
   */
  private readonly fullState = new Map<string, { running: boolean; ids: Set<string> | null; again?: Set<string> | null }>();

  queue(sessionId: string, seq: number, nodeIds?: string[]): void {
    const wanted = nodeIds ? new Set(nodeIds) : null;
    const merge = (into: Set<string> | null | undefined): Set<string> | null => (into === null || wanted === null ? null : new Set([...(into ?? []), ...wanted]));
    const state = this.fullState.get(sessionId);
    if (state) {
      // Waiting: that read takes this change too. Running: it may have read too early; read once more.
      if (state.running) state.again = merge(state.again);
      else state.ids = merge(state.ids);
      return;
    }
    this.fulls.set(sessionId, seq);
    this.fullState.set(sessionId, { running: false, ids: wanted });
    this.fullsWaiting.push(sessionId);
    this.fullProgress.total++;
    this.fullsDrained ??= new Promise((resolve) => (this.drainFulls = resolve));
    this.pumpFulls();
  }

  private pumpFulls(): void {
    while (this.fullsRunning < FULL_READS && this.fullsWaiting.length > 0) {
      const sessionId = this.fullsWaiting.shift()!;
      const state = this.fullState.get(sessionId)!;
      state.running = true;
      this.fullsRunning++;
      const ids = state.ids;
      void this.options.read(sessionId, ids).then((retry) => {
        this.fullsRunning--;
        state.running = false;
        if (this.options.stopped()) return this.endFull(sessionId);
        if (retry) {
          state.ids = ids === null || state.again === null ? null : new Set([...ids, ...(state.again ?? [])]);
          state.again = undefined;
          setTimeout(() => {
            this.fullsWaiting.push(sessionId);
            this.pumpFulls();
          }, this.options.retryMs).unref?.();
        } else if (state.again !== undefined) {
          state.ids = state.again;
          state.again = undefined;
          this.fullsWaiting.push(sessionId);
        } else {
          this.endFull(sessionId);
          this.options.onRead();
        }
        this.pumpFulls();
      });
    }
  }

  private endFull(sessionId: string): void {
    if (!this.fullState.delete(sessionId)) return;
    this.fulls.delete(sessionId);
    this.fullProgress.done++;
    if (this.fulls.size === 0) {
      this.fullProgress = { done: 0, total: 0 };
      const drain = this.drainFulls;
      this.fullsDrained = null;
      this.drainFulls = null;
      drain?.();
    }
  }
}
