import { secondsToMs } from '../time.js';
import { interruptionNote } from '../dag/record-nodes.js';
import type { TurnInterruption } from '../types.js';

/** meta.json key of the last turn's interruption: `{reason, at (seconds), idle_ms?}` (ours, FORMAT's `_` prefix). */
export const INTERRUPTION_KEY = '_turn_interrupted';

/** The meta.json value read defensively: anything malformed is no interruption. */
export function interruptionOf(value: unknown): TurnInterruption | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const reason = record['reason'];
  if (reason !== 'stopped' && reason !== 'idle') return null;
  const at = typeof record['at'] === 'number' && Number.isFinite(record['at']) ? secondsToMs(record['at']) : 0;
  const idle = record['idle_ms'];
  const idleMs = reason === 'idle' && typeof idle === 'number' && Number.isFinite(idle) ? idle : null;
  return { reason, at, idleMs, note: interruptionNote(reason, idleMs) };
}
