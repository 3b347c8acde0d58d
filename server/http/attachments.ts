import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { isSessionId, MAX_ATTACHMENT_BYTES } from '@/lib/store/index';
import { BodyTooLargeError, limitBody, MAX_BODY_BYTES } from './body-limit';
import { domainErrorStatus } from './domain-error-status';
import { authenticateRoute, jsonError, withRouteWrite } from './route-auth';
import { outsideProjectRefusal, reachesSession } from './route-access';
import type { UserStore } from '@/server/runtime';

function unknownSession(sessionId: string): Response {
  // The tRPC API's message for the same case: another user's session reads as a missing one.
  return jsonError(404, `unknown session: ${sessionId}`);
}

/**
 * `POST /api/attachments` (multipart: `sessionId`, `file`) → `{id, name, size, mime}`. The file
 * lands in the session repo's workdir/attachments/ and is committed with the next turn; `id` is
 * the stored name, the only thing a download may ask for.
 */
export async function uploadAttachment(req: Request): Promise<Response> {
  return withRouteWrite(req.headers, async (caller) => {
    if (!/^multipart\/form-data\s*;/i.test(req.headers.get('content-type') ?? '')) {
      return jsonError(400, 'send multipart/form-data with the fields sessionId and file');
    }
    let form: FormData;
    try {
      form = await (await limitBody(req)).formData();
    } catch (error) {
      if (error instanceof BodyTooLargeError) return jsonError(413, `request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`);
      return jsonError(400, 'the multipart body could not be read');
    }
    const sessionId = form.get('sessionId');
    if (!isSessionId(sessionId)) return jsonError(400, 'sessionId required (a session id)');
    if (!caller.store.hasSession(sessionId)) return unknownSession(sessionId);
    if (!reachesSession(caller, sessionId)) return jsonError(403, outsideProjectRefusal(caller.access, sessionId));
    const files = form.getAll('file');
    const file = files[0];
    if (files.length !== 1 || !(file instanceof Blob)) return jsonError(400, 'file required: exactly one file field');
    const name = file instanceof File && file.name ? file.name : 'attachment';
    if (file.size > MAX_ATTACHMENT_BYTES) {
      return jsonError(413, `attachment ${JSON.stringify(name)} is larger than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB`);
    }
    try {
      const saved = await caller.store.saveAttachment(sessionId, { name, data: Buffer.from(await file.arrayBuffer()), mime: file.type });
      // Not `path`: where the server keeps files is none of the client's business.
      return Response.json({ id: saved.id, name: saved.name, size: saved.size, mime: saved.mime });
    } catch (error) {
      const refused = domainErrorStatus(error);
      if (refused === null) throw error;
      return refused.status === 404 ? unknownSession(sessionId) : jsonError(refused.status, refused.message);
    }
  });
}

/** RFC 6266: an ASCII fallback plus the UTF-8 name. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export type AttachmentDownload =
  | { kind: 'refused'; response: Response }
  /** an open file: send `headers`, then exactly `size` bytes from `file`, and close it */
  | { kind: 'file'; file: FileHandle; size: number; headers: Record<string, string> };

/**
 * `GET /api/attachments/<sessionId>/<name>`: always a download (`Content-Disposition:
 * attachment`, `nosniff`), never rendered. Only a plain file directly in the session's
 * attachments folder is served; separators, dot names and links are refused by the store.
 * The transport (pages/api, which can set Content-Length) sends what this decides.
 */
export async function openAttachmentDownload(requestHeaders: Headers, sessionId: string, name: string): Promise<AttachmentDownload> {
  const refuse = (response: Response): AttachmentDownload => ({ kind: 'refused', response });
  const caller = await authenticateRoute(requestHeaders, { write: false });
  if (caller instanceof Response) return refuse(caller);
  if (!isSessionId(sessionId)) return refuse(jsonError(400, 'invalid session id'));
  if (!caller.store.hasSession(sessionId) || !reachesSession(caller, sessionId)) return refuse(unknownSession(sessionId));
  return openStoredAttachment(caller.store, sessionId, name);
}

/**
 * The download of an attachment of a session of `store`, already authorised by the caller (its
 * owner, or a share link that shows the message naming it).
 */
export async function openStoredAttachment(store: UserStore, sessionId: string, name: string): Promise<AttachmentDownload> {
  const refuse = (response: Response): AttachmentDownload => ({ kind: 'refused', response });
  let resolved;
  try {
    resolved = await store.resolveAttachment(sessionId, name);
  } catch (error) {
    const refused = domainErrorStatus(error);
    if (refused === null) throw error;
    return refuse(jsonError(refused.status, refused.message));
  }
  // O_NOFOLLOW: the checked path is opened as it was checked, never through a link put there since.
  const file = await open(resolved.path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (!file) return refuse(jsonError(404, `attachment not found: ${name}`));
  const info = await file.stat();
  if (!info.isFile()) {
    await file.close();
    return refuse(jsonError(404, `attachment not found: ${name}`));
  }
  return {
    kind: 'file',
    file,
    size: info.size,
    headers: {
      'content-type': resolved.mime,
      // fstat of the open file: the count of the bytes that will be sent, even if it grows later.
      'content-length': String(info.size),
      'content-disposition': contentDisposition(resolved.name),
      'x-content-type-options': 'nosniff',
      // no-transform: no compression on the way out, so Content-Length stays the file's size.
      'cache-control': 'private, no-store, no-transform',
    },
  };
}
