/** The audit entries of plain routes (not tRPC): who is the route's caller, from where the request's address. */
import type { IncomingHttpHeaders } from 'node:http';
import { clientIp } from '@/server/auth/client-ip';
import { recordAudit } from './audit-runtime';

/** An export (`/api/export/…`): what was asked for (the path and query), and whether it was answered. */
export async function auditExport(caller: { user: { id: string } }, headers: IncomingHttpHeaders, url: URL, status: number): Promise<void> {
  await recordAudit({ user: caller.user, ip: clientIp(headers as Record<string, unknown>) }, 'export', `${url.pathname}${url.search}`, status < 400 ? 'success' : 'failure');
}
