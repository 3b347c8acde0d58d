import { SESSION_ID_PATTERN } from '@/lib/store/index';

/**
 * `/api/attachments/<sessionId>/<name>`: the only URL a message may show as an image. Any other
 * path of this site (`/api/events`, a page, an API call with a query) would have the reader's
 * browser request it with their cookie. The name is one path segment: no separator, no dot
 * segment, nothing escaped into one, so the browser requests exactly this route.
 */
export function isAttachmentPath(url: string): boolean {
  const match = /^\/api\/attachments\/([^/?#\\]+)\/([^/?#\\]+)$/.exec(url);
  if (!match) return false;
  const [, sessionId, name] = match as unknown as [string, string, string];
  if (!SESSION_ID_PATTERN.test(sessionId)) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    return false;
  }
  return decoded !== '.' && decoded !== '..' && !/[/\\\u0000-\u001f\u007f]/.test(decoded);
}
