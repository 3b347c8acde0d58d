import type { NextApiRequest, NextApiResponse } from 'next';
import { SHARE_HEADERS, openSharedAttachment } from '@/server/http/share-attachment';
import { allowGetOnly, headersOf, sendDownload } from '@/server/http/send-download';

/** `GET /api/share/<id>/attachments/<name>`: an attachment of a shared turn, through its link only. */
export const config = { api: { bodyParser: false, responseLimit: false } };

export default async function handler(req: NextApiRequest, res: NextApiResponse): Promise<void> {
  if (!allowGetOnly(req, res)) return;
  const { id, name } = req.query;
  await sendDownload(req, res, await openSharedAttachment(headersOf(req), typeof id === 'string' ? id : '', typeof name === 'string' ? name : ''), SHARE_HEADERS);
}
