import { pipeline } from 'node:stream/promises';
import type { NextApiRequest, NextApiResponse } from 'next';
import type { AttachmentDownload } from './attachments';

/** A Pages API request's headers as a fetch Headers. */
export function headersOf(req: NextApiRequest): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(key, value);
    else if (Array.isArray(value)) headers.set(key, value.join(', '));
  }
  return headers;
}

/**
 * Sends an attachment download through a Pages API route (which, unlike a route handler, keeps
 * Content-Length), or its refusal as JSON; `extraHeaders` go on both.
 */
export async function sendDownload(req: NextApiRequest, res: NextApiResponse, download: AttachmentDownload, extraHeaders: Record<string, string> = {}): Promise<void> {
  for (const [key, value] of Object.entries(extraHeaders)) res.setHeader(key, value);
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

/** GET and HEAD only; anything else is answered here (405) and false returned. */
export function allowGetOnly(req: NextApiRequest, res: NextApiResponse): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  res.setHeader('allow', 'GET, HEAD');
  res.status(405).json({ error: 'method not allowed' });
  return false;
}
