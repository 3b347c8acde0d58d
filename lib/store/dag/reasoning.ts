/**
 * A message's reasoning, whichever way it came in: chat, Codex and ChatGPT imports write
 * `metadata.reasoning` (a string), Claude Code imports `metadata.thinking` (a string), the
 * recording proxy `metadata.thinking` as blocks (`{text, signature?}`). Every reader (export,
 * search, rendering) asks here, so no way in is missed by one of them. Empty: null.
 */
export function reasoningOf(metadata: Readonly<Record<string, unknown>>): string | null {
  const parts: string[] = [];
  for (const value of [metadata['reasoning'], metadata['thinking']]) {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) {
      for (const block of value) {
        if (typeof block === 'string') parts.push(block);
        else if (block && typeof block === 'object' && typeof (block as { text?: unknown }).text === 'string') parts.push((block as { text: string }).text);
      }
    }
  }
  const text = parts.map((part) => part.trim()).filter((part) => part !== '').join('\n\n');
  return text === '' ? null : text;
}
