import { z } from 'zod';
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, TOKEN_NAME_MAX_LENGTH } from '@/lib/auth/index';

/** Input pieces shared by several routers. lib/auth checks the same rules again for other callers. */
export const emailInput = z.string().trim().max(EMAIL_MAX_LENGTH).pipe(z.email({ error: 'must be an email address' }));
export const passwordInput = z
  .string()
  .refine((value) => [...value].length >= PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .refine((value) => [...value].length <= PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
export const userIdInput = z.string().regex(/^[0-9a-f]{16}$/, 'must be a user id');
export const tokenIdInput = z.string().regex(/^[0-9a-f]{12}$/, 'must be a token id');
export const tokenNameInput = z.string().trim().min(1, 'must not be empty').max(TOKEN_NAME_MAX_LENGTH);
