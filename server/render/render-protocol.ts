/** The messages between the render pool and its workers. */

export interface WorkerJob {
  id: number;
  text: string;
}

/** Why a message is shown as plain text rather than as Markdown. */
export type PlainReason = 'too-large' | 'too-deep' | 'deadline' | 'failed';

export type WorkerAnswer =
  | { ready: true }
  | { id: number; html: string }
  | { id: number; failure: Extract<PlainReason, 'too-deep' | 'failed'>; detail: string };

/**
 * A render worker's nice value: rendering yields the CPU to the threads answering requests, so on
 * a busy machine a page waits a little longer rather than every user's API calls (Linux only).
 */
export const RENDER_NICE = 10;
