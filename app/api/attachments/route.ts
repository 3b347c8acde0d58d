import { uploadAttachment } from '@/server/http/attachments';

export const dynamic = 'force-dynamic';

/** Multipart upload of one file into a session: `sessionId`, `file` → `{id, name, size, mime}`. */
export function POST(req: Request): Promise<Response> {
  return uploadAttachment(req);
}
