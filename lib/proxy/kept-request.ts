import { readSystemShape, restoreSystem, shapeOfSystem, type SystemShape } from './system-shape.js';
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
  /** the system prompt's blocks less their text, when it was sent as blocks: sent again as such */
  systemShape?: SystemShape;
}

/** Requests past this many bytes are not kept (their reply is then retried by the web chat): OPENPROGRAM_PROXY_KEEP_REQUEST_BYTES. */
export function keepRequestLimit(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const value = Number(env['OPENPROGRAM_PROXY_KEEP_REQUEST_BYTES']);
  return Number.isInteger(value) && value >= 0 ? value : 8 * 1024 * 1024;
}

const SYSTEM_FIELD: Record<Wire, KeptRequest['systemField']> = { anthropic: 'system', responses: 'instructions', chat: null };

/**
 * Whether the body carries base64 data (a document, an image, a file): the redactor cannot read a
 * secret under the encoding (the recording moves such media into redacted attachments instead),
 * so a request holding any is not kept whole.
 */
function holdsBase64(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (/^data:[^,]*;base64,/i.test(item)) return true;
    } else if (Array.isArray(item)) stack.push(...item);
    else if (item && typeof item === 'object') {
      const record = item as Record<string, unknown>;
      if ((record['type'] === 'base64' && typeof record['data'] === 'string') || typeof record['file_data'] === 'string') return true;
      stack.push(...Object.values(record));
    }
  }
  return false;
}

/** The request as kept, or null when it is no JSON object, past `limit` bytes, or carries base64 media. */
export function keepRequest(wire: Wire, json: unknown, bodyBytes: number, limit = keepRequestLimit()): KeptRequest | null {
  if (bodyBytes > limit || typeof json !== 'object' || json === null || Array.isArray(json) || holdsBase64(json)) return null;
  const field = SYSTEM_FIELD[wire];
  const body = { ...(json as Record<string, unknown>) };
  const hadSystem = field !== null && body[field] !== undefined;
  const shape = field ? shapeOfSystem(body[field]) : null;
  if (field) delete body[field];
  return { body, systemField: hadSystem ? field : null, ...(shape ? { systemShape: shape } : {}) };
}

/** A kept request read back from a context file: null when it is not one. */
export function readKeptRequest(value: unknown): KeptRequest | null {
  if (typeof value !== 'object' || value === null) return null;
  const { body, systemField, systemShape } = value as Partial<KeptRequest>;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  if (systemField !== null && systemField !== 'system' && systemField !== 'instructions') return null;
  const shape = readSystemShape(systemShape);
  return { body, systemField, ...(shape ? { systemShape: shape } : {}) };
}

/** Where each wire's requests go, appended to the upstream's base URL (anthropic: the API root; openai: with /v1). */
export const UPSTREAM_PATH: Record<Wire, string> = { anthropic: '/v1/messages', responses: '/responses', chat: '/chat/completions' };

/** The body to send again: the kept one with its system prompt (the text stored under its hash) put back where it was, as blocks when it came so. */
export function bodyToResend(kept: KeptRequest, system: string | null): Record<string, unknown> {
  if (!kept.systemField || system === null) return { ...kept.body };
  const blocks = kept.systemShape ? restoreSystem(kept.systemShape, system) : null;
  return { ...kept.body, [kept.systemField]: blocks ?? system };
}
