import { CodedError } from '../errors/coded-error.js';

/**
 * Typed auth errors. Like lib/store's StoreError, `code` is mapped to a tRPC code in one place
 * (server/api/errors.ts); nothing else inspects messages.
 */
export type AuthErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS';

export class AuthError extends CodedError<AuthErrorCode> {}
