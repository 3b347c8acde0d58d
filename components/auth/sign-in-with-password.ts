'use client';

import { signIn } from 'next-auth/react';
import { describeSignInError } from './sign-in-messages';

/** next-auth's credentials flow without a page reload; the error text to show, or null on success. */
export async function signInWithPassword(email: string, password: string): Promise<string | null> {
  const result = await signIn('credentials', { email, password, redirect: false });
  if (!result) return 'The sign-in service did not answer.';
  if (result.ok && !result.error) return null;
  return describeSignInError(result.error);
}
