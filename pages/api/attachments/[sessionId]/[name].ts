import type { NextApiRequest, NextApiResponse } from 'next';
import { openAttachmentDownload } from '@/server/http/attachments';
import { allowGetOnly, headersOf, sendDownload } from '@/server/http/send-download';

/**
 * `GET /api/attachments/<sessionId>/<name>`. A Pages API route, not an App route handler, for
 * one reason: Next drops Content-Length from route handler responses (send-response.ts), and a
 * download should say how big it is. The decisions live in server/http/attachments.ts.
 */
export const config = { api: { bodyParser: false, responseLimit: false } };

export default async function handler(req: NextApiRequest, res: NextApiResponse): Promise<void> {
  if (!allowGetOnly(req, res)) return;
  const { sessionId, name } = req.query;
  if (typeof sessionId !== 'string' || typeof name !== 'string') {
    res.status(400).json({ error: 'invalid attachment path' });
    return;
  }
  await sendDownload(req, res, await openAttachmentDownload(headersOf(req), sessionId, name));
}
