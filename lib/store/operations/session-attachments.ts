import { resolveAttachment, saveAttachment, type AttachmentUpload, type ResolvedAttachment, type SavedAttachment } from '../repo/attachments.js';
import { addRedacted } from '../session/append-node.js';
import { redactFileBytes } from '../session/migration-redact.js';
import type { StoreContext } from '../session/store-context.js';
import { withSession } from '../session/session-access.js';

/**
 * Files uploaded into a session: workdir/attachments/ of its repo, committed with the turn. A
 * text file passes the redactor like a message (a document an agent sent through the proxy as
 * base64 is one of these): it is committed too, and a secret in git stays forever.
 */
export function saveSessionAttachment(ctx: StoreContext, sessionId: string, upload: AttachmentUpload): Promise<SavedAttachment> {
  return withSession(ctx, sessionId, async (session) => {
    // A large file in the redactor's background: up to 20 MB would hold the event loop ~0.5 s (issue 27 item 1).
    const redacted = ctx.redactor ? await redactFileBytes(ctx.redactor, Buffer.from(upload.data)) : null;
    if (!redacted) return saveAttachment(session.dir, upload);
    // Counted in meta.json with the node that names the file, as a message's count is.
    addRedacted(session, redacted.count);
    return saveAttachment(session.dir, { ...upload, data: redacted.bytes });
  });
}

export function resolveSessionAttachment(ctx: StoreContext, sessionId: string, name: string): Promise<ResolvedAttachment> {
  return withSession(ctx, sessionId, (session) => resolveAttachment(session.dir, name));
}
