/**
 * What an error answer of a model server says, as one line for a person: the `message` of
 * OpenAI's `{"error":{"message"}}` (and the `{"error":"…"}`, `{"message"}`, `{"detail"}` shapes
 * of other servers), else the body's text with markup and runs of space removed; cut to `max`.
 */
export function errorBodyMessage(body: string, max = 300): string {
  let message: string | null = null;
  try {
    const parsed = JSON.parse(body) as unknown;
    message = messageOf(parsed);
  } catch {
    // not JSON: the text itself
  }
  const text = (message ?? body.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function messageOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (!value || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  for (const key of ['error', 'message', 'detail']) {
    const found = messageOf(record[key]);
    if (found) return found;
  }
  return null;
}
