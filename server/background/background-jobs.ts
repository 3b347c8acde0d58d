/**
 * The background thread's jobs (background-thread.ts sends them, background-worker.ts runs them):
 * the same functions run here when the thread is not available. Relative imports: the worker
 * loads this file itself, without the app's `@/` paths.
 */
import { rewriteTextFile } from '../../lib/fs/text-file';
import { planExchange, type ExchangeBytes, type PlannedExchange } from '../../lib/proxy/plan';
import { redactMessage, redactMessages, type RedactableMessage } from '../../lib/redact/index';

export type BackgroundJob = { kind: 'plan'; exchange: ExchangeBytes } | { kind: 'redact'; messages: RedactableMessage[] } | { kind: 'redact-bytes'; bytes: Uint8Array };
type Redacted = { message: RedactableMessage; count: number }[];
type RedactedBytes = { bytes: Uint8Array; count: number } | null;
export type ResultOf<J extends BackgroundJob> = J extends { kind: 'plan' } ? PlannedExchange : J extends { kind: 'redact' } ? Redacted : RedactedBytes;

/** One job done on the calling thread. A file's bytes are redacted as lib/store's redactBytes does (the same rewriteTextFile). */
export function runJob(job: BackgroundJob): unknown {
  if (job.kind === 'plan') return planExchange(job.exchange);
  if (job.kind === 'redact') return redactMessages(job.messages);
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  return rewriteTextFile(bytes, (value) => {
    const { message, count } = redactMessage({ content: value });
    return { value: message.content, count };
  });
}
