import type { RouterOutputs } from '@/trpc/types';

type SignInMethod = RouterOutputs['admin']['listUsers'][number]['signIn'];

/** How a user signs in, as the Admin page's user list says it: "password" or "single sign-on (<issuer host>)". */
export function signInMethodLabel(method: SignInMethod): string {
  if (method.kind === 'password') return 'password';
  let issuer = method.issuer;
  try {
    issuer = new URL(method.issuer).host;
  } catch {
    // an issuer that is not a URL is shown as it is
  }
  return `single sign-on (${issuer})`;
}
