import { onSignIn } from '@/server/auth/sign-in-events';
import { recordAudit } from './audit-runtime';

/**
 * Single sign-on's sign-ins in the audit log (DESIGN §17), as the password ones are: the email as
 * the target with how it came and, for a refusal, why. Registered once at start-up; the provider's
 * callbacks report every success and refusal (server/auth/sign-in-events.ts).
 */
export function auditSingleSignOn(): void {
  onSignIn((event) => {
    const target = `${event.email ?? 'unknown email'} (single sign-on${event.reason ? `: ${event.reason}` : ''})`;
    void recordAudit({ user: null, ip: event.ip }, 'sign-in', target, event.result, event.userId);
  });
}
