import { importUpload } from '@/server/http/import-upload';

export const dynamic = 'force-dynamic';

/** One file to import as the raw body, `?name=` its name → the import report (server/http/import-upload.ts). */
export function POST(req: Request): Promise<Response> {
  return importUpload(req.headers, new URL(req.url), req.body as AsyncIterable<Uint8Array> | null);
}
