// Shared by the server-rendered sign-in page and the client forms (no 'use client' here).

export function describeSignInError(error: string | null | undefined): string {
  if (!error || error === 'CredentialsSignin') return 'Wrong email or password, or the account is disabled.';
  return error;
}

/** Only paths of this app: never an absolute URL that could send the user elsewhere. */
export function safeCallbackUrl(value: string | undefined): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : '/';
}
