/** The audit log's sign-in and sign-out entries (DESIGN §17), called from next-auth's authorize() and its route. */
import type { SignInResult } from '@/lib/auth/index';
import { clientIp } from '@/server/auth/client-ip';
import { authenticatePageRequest } from '@/server/auth/request-auth';
import { getAuthStore } from '@/server/runtime';
import { recordAudit } from './audit-runtime';

/**
 * One entry per credentials sign-in, the typed email as its target. A failure names the account
 * it was aimed at as the actor when one has that email, so its owner sees it among their own
 * entries; an unknown email has no actor.
 */
export async function auditSignIn(headers: Record<string, unknown>, email: string, result: SignInResult): Promise<void> {
  const who = { user: null, ip: clientIp(headers) };
  const actor = result.ok ? result.user.id : (getAuthStore().users.findByEmail(email)?.id ?? null);
  await recordAudit(who, 'sign-in', email, result.ok ? 'success' : 'failure', actor);
}

/** next-auth's sign-out: who it was, read from the cookie before next-auth clears it. */
export async function signOutAuditor(method: string, url: string, headers: Headers): Promise<((status: number) => Promise<void>) | null> {
  if (method !== 'POST' || new URL(url).pathname !== '/api/auth/signout') return null;
  const outcome = await authenticatePageRequest(headers, getAuthStore());
  if (outcome.kind !== 'ok') return null;
  const who = { user: outcome.auth.user, ip: clientIp(headers) };
  return (status) => recordAudit(who, 'sign-out', outcome.auth.user.email, status < 400 ? 'success' : 'failure');
}
