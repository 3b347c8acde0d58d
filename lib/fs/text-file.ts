/**
 * The text of a text file's bytes, rewritten (by the redactor: lib/store's migration-redact.ts on
 * the request thread, server/background/ in its worker thread; one rule for both).
 */

/** What a rewrite gives back: the new value and how many changes it made (0: the file is left alone). */
export type TextRewrite = (value: unknown) => { value: unknown; count: number };

/**
 * Bytes as text: UTF-8 when they are UTF-8, else Latin-1 (every byte one character, so a file in
 * Windows-1252 or ISO-8859-x is still read, its ASCII secrets found, and written back byte for byte).
 */
export function decodeText(bytes: Buffer): { text: string; encoding: 'utf8' | 'latin1' } {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? { text, encoding: 'utf8' } : { text: bytes.toString('latin1'), encoding: 'latin1' };
}

/** A text rewritten, in the encoding it was read in; null when nothing changed. */
export function rewriteTextBytes(bytes: Buffer, rewrite: TextRewrite): { bytes: Buffer; count: number } | null {
  const { text, encoding } = decodeText(bytes);
  const { value, count } = rewrite(text);
  // The markers are ASCII and every other character came from these bytes: Latin-1 round-trips.
  return count > 0 ? { bytes: Buffer.from(String(value), encoding), count } : null;
}

/**
 * Rewritten bytes of a text file (JSON: every string inside; not UTF-8: as Latin-1), or null when
 * nothing changed. A file with a NUL byte is binary and left alone.
 */
export function rewriteTextFile(bytes: Buffer, rewrite: TextRewrite): { bytes: Buffer; count: number } | null {
  if (bytes.length < 8 || bytes.includes(0)) return null;
  const { text, encoding } = decodeText(bytes);
  if (encoding === 'latin1') return rewriteTextBytes(bytes, rewrite);
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const { value, count } = rewrite(JSON.parse(text) as unknown);
      return count > 0 ? { bytes: Buffer.from(JSON.stringify(value)), count } : null;
    } catch {
      // not JSON after all: as text
    }
  }
  const { value, count } = rewrite(text);
  return count > 0 ? { bytes: Buffer.from(String(value)), count } : null;
}
