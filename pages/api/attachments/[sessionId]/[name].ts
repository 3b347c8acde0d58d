import { pipeline } from 'node:stream/promises';
import type { NextApiRequest, NextApiResponse } from 'next';
import { openAttachmentDownload } from '@/server/http/attachments';

/**
 * `GET /api/attachments/<sessionId>/<name>`. A Pages API route, not an App route handler, for
 * one reason: Next drops Content-Length from route handler responses (send-response.ts), and a
 * download should say how big it is. The decisions live in server/http/attachments.ts.
 */
export const config = { api: { bodyParser: false, responseLimit: false } };

function headersOf(req: NextApiRequest): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(key, value);
    else if (Array.isArray(value)) headers.set(key, value.join(', '));
  }
  return headers;
}

export default async function handler(req: NextApiRequest, res: NextApiResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    res.status(405).json({ error: 'method not allowed' });
    return;
  }
  const { sessionId, name } = req.query;
  if (typeof sessionId !== 'string' || typeof name !== 'string') {
    res.status(400).json({ error: 'invalid attachment path' });
    return;
  }
  const download = await openAttachmentDownload(headersOf(req), sessionId, name);
  if (download.kind === 'refused') {
    res.status(download.response.status).json(await download.response.json());
    return;
  }
  const { file, size, headers } = download;
  try {
    for (const [key, value] of Object.entries(headers)) res.setHeader(key, value);
    res.status(200);
    if (req.method === 'HEAD' || size === 0) {
      res.end();
      return;
    }
    // A client that goes away mid-download ends the pipeline; there is nobody left to answer.
    await pipeline(file.createReadStream({ start: 0, end: size - 1, autoClose: false }), res).catch(() => undefined);
  } finally {
    await file.close();
  }
}
