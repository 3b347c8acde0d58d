import { archiveRoute } from '@/server/http/session-archive';

export const dynamic = 'force-dynamic';

/** The seeds' `POST /api/sessions/archive {session_id}`. */
export function POST(req: Request): Promise<Response> {
  return archiveRoute(req, true);
}
