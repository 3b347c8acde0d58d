import type { NextApiRequest, NextApiResponse } from 'next';
import { serveExport } from '@/server/http/export';

/**
 * `/api/export/…` under `next start` / `next dev` (serve.ts answers it before Next in
 * production). A Pages API route: it hands over node's request and response, so the export is
 * written to the socket as it is made. The decisions live in server/http/export.ts.
 */
export const config = { api: { bodyParser: false, responseLimit: false } };

export default function handler(req: NextApiRequest, res: NextApiResponse): Promise<void> {
  return serveExport(req, res);
}
