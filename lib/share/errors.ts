import { CodedError } from '../errors/coded-error.js';

export type ShareErrorCode = 'BAD_REQUEST' | 'NOT_FOUND';

/** Typed share-link errors, mapped to tRPC codes in server/api/errors.ts like the store's. */
export class ShareError extends CodedError<ShareErrorCode> {}

/**
 * The one answer for a link that cannot be opened: never made, revoked, expired, or its session
 * gone. The same words every time, so nothing tells a revoked link from a guessed one.
 */
export const NO_SUCH_LINK = 'no such share link';
