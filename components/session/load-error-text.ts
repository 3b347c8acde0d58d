/**
 * What a failed page load of messages says. The server action answers Next's 404 for a session
 * that is gone (deleted, or never this user's): its error carries only Next's digest, which
 * means nothing to a reader.
 */
export function loadErrorText(error: unknown): string {
  const digest = (error as { digest?: unknown } | null)?.digest;
  const message = error instanceof Error ? error.message : String(error);
  if ((typeof digest === 'string' && digest.startsWith('NEXT_HTTP_ERROR_FALLBACK;404')) || message.startsWith('NEXT_HTTP_ERROR_FALLBACK;404')) {
    return 'this session no longer exists (it was deleted, or is not yours)';
  }
  return message;
}
