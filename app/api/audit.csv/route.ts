import { auditCsvRoute } from '@/server/http/audit-csv';

export const dynamic = 'force-dynamic';

/** The audit log as CSV (DESIGN §17): server/http/audit-csv.ts. */
export function GET(req: Request): Promise<Response> {
  return auditCsvRoute(req);
}
