export const dynamic = 'force-dynamic';

/** Liveness, without authentication. */
export function GET(): Response {
  return Response.json({ ok: true });
}
