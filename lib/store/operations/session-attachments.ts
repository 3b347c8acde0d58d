import { resolveAttachment, saveAttachment, type AttachmentUpload, type ResolvedAttachment, type SavedAttachment } from '../repo/attachments.js';
import type { StoreContext } from '../session/store-context.js';
import { withSession } from '../session/session-access.js';

/** Files uploaded into a session: workdir/attachments/ of its repo, committed with the turn. */
export function saveSessionAttachment(ctx: StoreContext, sessionId: string, upload: AttachmentUpload): Promise<SavedAttachment> {
  return withSession(ctx, sessionId, (session) => saveAttachment(session.dir, upload));
}

export function resolveSessionAttachment(ctx: StoreContext, sessionId: string, name: string): Promise<ResolvedAttachment> {
  return withSession(ctx, sessionId, (session) => resolveAttachment(session.dir, name));
}
