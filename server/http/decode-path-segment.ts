/**
 * A percent-encoded path segment decoded, or null when the escapes are malformed (a lone `%`, a
 * truncated or overlong UTF-8 sequence): `decodeURIComponent` throws on those, and a throw on a
 * route's input became a 500 with a stack instead of the caller's 400.
 */
export function decodePathSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
