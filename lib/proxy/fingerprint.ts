import { createHash } from 'node:crypto';
import type { Step } from './types.js';

/** JSON with object keys sorted, so equal values give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function canonicalArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * What makes a message the same message (DESIGN §12): its role, its text (reminders and
 * transport fields such as `cache_control` already left out by the parser) and, for the model,
 * its tool calls by name and arguments. Ids, thinking and signatures are not identity: agents
 * resend them differently. Tool results hang off their call and are no link of the chain.
 */
export function identityOf(step: Step): unknown {
  if (step.role === 'user') return { role: 'user', text: step.text, media: step.media.map((item) => sha256(item.data ?? item.url ?? '')) };
  if (step.role === 'assistant') return { role: 'assistant', text: step.text, calls: step.toolCalls.map((call) => ({ name: call.name, arguments: canonicalArguments(call.arguments) })) };
  return null;
}

/** The fingerprint of a conversation that `previous` ends and `step` extends. */
export function chainFingerprint(previous: string, step: Step): string {
  return sha256(`${previous}\n${canonicalJson(identityOf(step))}`);
}

/**
 * The chained fingerprint of each step: a user or assistant step gets the fingerprint of the
 * conversation up to and including it; a tool result gets null. `start` continues a chain
 * (the conversation a previous_response_id names).
 */
export function fingerprints(steps: readonly Step[], start = ''): (string | null)[] {
  let current = start;
  return steps.map((step) => {
    if (step.role === 'tool') return null;
    current = chainFingerprint(current, step);
    return current;
  });
}

export function textHash(text: string): string {
  return sha256(text);
}
