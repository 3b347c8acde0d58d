/**
 * Why a POST to next-auth's routes is refused before next-auth reads it, or null: next-auth
 * `JSON.parse`s a body sent as `application/json` and reads fields off it, so a body that is not
 * a JSON object would throw inside it (a 500 with nothing said) instead of the caller's 400.
 */
export function malformedAuthBody(contentType: string | null, body: string): string | null {
  if (!contentType?.includes('application/json')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'the body is not valid JSON';
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? null : 'the body must be a JSON object';
}
