// Shared by the server-rendered sign-in page and the client forms (no 'use client' here).
import { describeSingleSignOnError } from './oidc-sign-in-messages';

export function describeSignInError(error: string | null | undefined): string {
  if (!error || error === 'CredentialsSignin') return 'Wrong email or password, or the account is disabled.';
  return describeSingleSignOnError(error) ?? error;
}

// Any origin will do: only whether the resolved URL stays on it matters.
const PROBE_ORIGIN = 'http://callback.invalid';

/**
 * Only paths of this app, never a URL that could send the user elsewhere. The value is resolved
 * the way the browser will and must stay on the same origin. Control characters and backslashes
 * are refused first: browsers drop tab, CR and LF inside a URL (`/\t/evil.example` is then
 * `//evil.example`) and read `\` as `/`; a CR or LF would also break the redirect header.
 */
export function safeCallbackUrl(value: string | undefined): string {
  if (!value || !value.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(value)) return '/';
  let resolved: URL;
  try {
    resolved = new URL(value, PROBE_ORIGIN);
  } catch {
    return '/';
  }
  // `/.//evil.example` resolves to the path `//evil.example`, which as a Location is another host.
  if (resolved.origin !== PROBE_ORIGIN || resolved.pathname.startsWith('//')) return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
