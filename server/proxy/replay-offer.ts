import type { Wire } from '@/lib/proxy/types';

/**
 * What the session page offers for "Replay with…" on a reply, read off its metadata (DESIGN §14
 * Replay): a proxied reply whose request was kept can be replayed (through an upstream of the
 * kind its wire speaks); one whose request was not kept says why; any other reply has no Replay.
 */
export type ReplayOffer = { kept: true; upstream: string; model: string; kind: 'anthropic' | 'openai' } | { kept: false; reason: string };

/** The upstream kind each wire's requests can go to. */
export const KIND_OF_WIRE: Record<Wire, 'anthropic' | 'openai'> = { anthropic: 'anthropic', responses: 'openai', chat: 'openai' };

const record = (value: unknown): Record<string, unknown> | null => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null);

export function replayOfferOf(metadata: Record<string, unknown>): ReplayOffer | null {
  const proxy = record(metadata['proxy']);
  if (!proxy) return null;
  const wire = proxy['wire'];
  const kind = typeof wire === 'string' && Object.hasOwn(KIND_OF_WIRE, wire) ? KIND_OF_WIRE[wire as Wire] : null;
  if (proxy['request_kept'] !== true || typeof proxy['upstream'] !== 'string' || !kind) {
    return { kept: false, reason: "The proxy did not keep this reply's request (too large, or it carried images or files), so it cannot be sent again." };
  }
  return { kept: true, upstream: proxy['upstream'], model: typeof metadata['model'] === 'string' ? metadata['model'] : '', kind };
}

/** `metadata.replay` of a replayed answer: the reply it replays and the model that gave it. */
export function replayMarkOf(metadata: Record<string, unknown>): { of: string; model: string } | null {
  const replay = record(metadata['replay']);
  return replay && typeof replay['of'] === 'string' && typeof replay['model'] === 'string' ? { of: replay['of'], model: replay['model'] } : null;
}
