import { allAuditEntries, AUDIT_CSV_HEADER, auditCsvRow } from '@/lib/audit/index';
import { actorName, auditFilterFor, auditFilterInput } from '@/server/audit/audit-access';
import { getAuditLog } from '@/server/audit/audit-runtime';
import { describeIssues } from '@/server/api/errors';
import { domainErrorStatus } from './domain-error-status';
import { authenticateRoute, jsonError } from './route-auth';
import { NON_PAGE_CSP, STATIC_SECURITY_HEADERS } from './security-headers';

/** The query's words as the procedure's input: numbers for times, `mine=1`; an empty value is no filter. */
function filterOf(params: URLSearchParams): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, value] of params) {
    if (value === '') continue;
    if (name === 'since' || name === 'until') input[name] = /^\d+$/.test(value) ? Number(value) : value;
    else if (name === 'mine') input[name] = value === '1' || value === 'true';
    else input[name] = value;
  }
  return input;
}

/**
 * `GET /api/audit.csv?actor&action&result&since&until&mine`: what `audit.list` shows with the same
 * filters, every page of it, newest first, as CSV (cells that would run as a formula prefixed).
 * Cookie or Bearer; the same who-reads-what as the procedure.
 */
export async function auditCsvRoute(req: Request): Promise<Response> {
  const caller = await authenticateRoute(req.headers, { write: false });
  if (caller instanceof Response) return caller;
  const parsed = auditFilterInput.safeParse(filterOf(new URL(req.url).searchParams));
  if (!parsed.success) return jsonError(400, describeIssues(parsed.error.issues));
  let filter: ReturnType<typeof auditFilterFor>;
  try {
    filter = auditFilterFor(caller, parsed.data);
  } catch (error) {
    const refused = domainErrorStatus(error);
    if (refused === null) throw error;
    return jsonError(refused.status, refused.message);
  }
  const { scope: _scope, ...entries } = filter;
  const rows = allAuditEntries(getAuditLog(), entries);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(AUDIT_CSV_HEADER));
    },
    async pull(controller) {
      const next = await rows.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(auditCsvRow(next.value, actorName)));
    },
    async cancel() {
      await rows.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      ...STATIC_SECURITY_HEADERS,
      'content-security-policy': NON_PAGE_CSP,
      'cache-control': 'private, no-store',
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="audit.csv"',
      'x-content-type-options': 'nosniff',
    },
  });
}
