/** The index's write queue: how long writes wait to be batched, and how long a full disk or a close waits. */

/** a queued write waits this long for others to join its transaction */
export const FLUSH_MS = 50;
/** a queue this long is written at once instead of waiting for the timer */
export const FLUSH_AT = 2_000;
/** how long a write that met a full disk waits before it is tried again */
export const DISK_FULL_RETRY_MS = 1_000;
/** how long close() waits for those reads (they wait for room on a full disk) */
export const CLOSE_WAIT_MS = 5_000;
