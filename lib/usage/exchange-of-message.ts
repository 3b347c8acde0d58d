import type { Message, SessionRow } from '../store/index.js';
import type { TokenCounts } from '../proxy/usage.js';
import { COUNT_FIELDS, type CountedExchange } from './usage-file.js';

/** A UTC day, YYYY-MM-DD, of a time in ms. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const countOf = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);

/**
 * An answer's `metadata.usage` (DESIGN §15) as a counted exchange, keyed by its day, model, the
 * session's project and agent; null for a node that is no answer or carries no usage. Read off
 * disk, so checked: a count that is not a whole number is unknown.
 */
export function exchangeOfMessage(row: SessionRow, message: Message): CountedExchange | null {
  if (message.role !== 'assistant') return null;
  const usage = message.metadata['usage'];
  if (!usage || typeof usage !== 'object' || Array.isArray(usage)) return null;
  const recorded = usage as Record<string, unknown>;
  const counts = Object.fromEntries(COUNT_FIELDS.map((field) => [field, countOf(recorded[field])])) as unknown as TokenCounts;
  const model = typeof recorded['model'] === 'string' ? recorded['model'] : typeof message.metadata['model'] === 'string' ? (message.metadata['model'] as string) : '';
  return {
    ...counts,
    sessionId: row.id,
    nodeId: message.id,
    day: dayOf(message.createdAt),
    model,
    project: row.project,
    agent: row.agentGroup,
    exact: recorded['exact'] !== false,
  };
}
