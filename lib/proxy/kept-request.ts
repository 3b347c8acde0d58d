import type { Wire } from './types.js';

/**
 * What the recording keeps of a proxied request so that its reply can be asked for again through
 * the same upstream (issue 28 item 6): the body as the agent sent it (its messages, its tools with
 * their schemas, its model and settings) less the system prompt, which is kept once by hash beside
 * it (context/system/<sha256>.txt), as every recording keeps it. Written into the reply's
 * context/commits/<replyId>.json, so it is redacted like everything else there.
 */
export interface KeptRequest {
  /** the body less its system prompt */
  body: Record<string, unknown>;
  /** the field the system prompt was in (Messages: `system`, Responses: `instructions`); null: none, or it is among the messages (Chat Completions) */
  systemField: 'system' | 'instructions' | null;
}

/** Requests past this many bytes are not kept (their reply is then retried by the web chat): OPENPROGRAM_PROXY_KEEP_REQUEST_BYTES. */
export function keepRequestLimit(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const value = Number(env['OPENPROGRAM_PROXY_KEEP_REQUEST_BYTES']);
  return Number.isInteger(value) && value >= 0 ? value : 8 * 1024 * 1024;
}

const SYSTEM_FIELD: Record<Wire, KeptRequest['systemField']> = { anthropic: 'system', responses: 'instructions', chat: null };

/** The request as kept, or null when it is no JSON object or past `limit` bytes. */
export function keepRequest(wire: Wire, json: unknown, bodyBytes: number, limit = keepRequestLimit()): KeptRequest | null {
  if (bodyBytes > limit || typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const field = SYSTEM_FIELD[wire];
  const body = { ...(json as Record<string, unknown>) };
  const hadSystem = field !== null && body[field] !== undefined;
  if (field) delete body[field];
  return { body, systemField: hadSystem ? field : null };
}

/** A kept request read back from a context file: null when it is not one. */
export function readKeptRequest(value: unknown): KeptRequest | null {
  if (typeof value !== 'object' || value === null) return null;
  const { body, systemField } = value as Partial<KeptRequest>;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  if (systemField !== null && systemField !== 'system' && systemField !== 'instructions') return null;
  return { body, systemField };
}

/** Where each wire's requests go, appended to the upstream's base URL (anthropic: the API root; openai: with /v1). */
export const UPSTREAM_PATH: Record<Wire, string> = { anthropic: '/v1/messages', responses: '/responses', chat: '/chat/completions' };

/** The body to send again: the kept one with its system prompt (the text stored under its hash) put back where it was. */
export function bodyToResend(kept: KeptRequest, system: string | null): Record<string, unknown> {
  return kept.systemField && system !== null ? { ...kept.body, [kept.systemField]: system } : { ...kept.body };
}
