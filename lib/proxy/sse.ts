/** One server-sent event: its `event:` name (null when absent) and its `data:` lines joined. */
export interface SseEvent {
  event: string | null;
  data: string;
}

/**
 * The events of an SSE body (the WHATWG rules that matter here: `\n`, `\r\n` or `\r` line ends,
 * several `data:` lines joined by `\n`, one optional space after the colon, comments ignored).
 * A last event without its blank line still counts: a stream cut off keeps what it had.
 */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  let event: string | null = null;
  let data: string[] = [];
  const flush = () => {
    if (data.length > 0) out.push({ event, data: data.join('\n') });
    event = null;
    data = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      flush();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  flush();
  return out;
}

/** The event's data as JSON, or null (`[DONE]`, a cut-off line). */
export function dataJson(event: SseEvent): Record<string, unknown> | null {
  try {
    const value = JSON.parse(event.data) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
