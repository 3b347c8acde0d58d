import { NO_SUCH_LINK } from '@/lib/share/index';
import { authenticateRequest } from '@/server/auth/request-auth';
import { getAuthStore } from '@/server/runtime';
import { openShare, sharedView, viewHasAttachment } from '@/server/share/share-view';
import { openStoredAttachment, type AttachmentDownload } from './attachments';
import { domainErrorStatus } from './domain-error-status';
import { jsonError } from './route-auth';

/** Every answer about a share link: never indexed, never kept by a cache. */
export const SHARE_HEADERS = { 'x-robots-tag': 'noindex', 'cache-control': 'no-store' } as const;

/**
 * An attachment through a share link: only a file a message of the shared view names, so the
 * link opens nothing of the session beyond what its page shows. A link that cannot be opened
 * answers as the page does (404, the same words whether it never existed, was revoked or expired).
 */
export async function openSharedAttachment(requestHeaders: Headers, shareId: string, name: string): Promise<AttachmentDownload> {
  const refuse = (status: number, message: string): AttachmentDownload => ({ kind: 'refused', response: jsonError(status, message, SHARE_HEADERS) });
  const viewer = await authenticateRequest(requestHeaders, getAuthStore());
  let view;
  try {
    view = await sharedView(shareId, { signedIn: viewer.kind === 'ok' });
  } catch (error) {
    const refused = domainErrorStatus(error);
    if (refused === null) throw error;
    return refuse(refused.status, refused.message);
  }
  const opened = await openShare(shareId);
  if (!opened) return refuse(404, NO_SUCH_LINK);
  if (!viewHasAttachment(view, name)) return refuse(404, `attachment not found: ${name}`);
  return openStoredAttachment(opened.store, opened.link.sessionId, name);
}
