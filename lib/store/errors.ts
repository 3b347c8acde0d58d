import { CodedError } from '../errors/coded-error.js';

/**
 * Typed store errors. The server maps `code` to a tRPC code in one place
 * (server/api/errors.ts); nothing else inspects messages.
 */
export type StoreErrorCode =
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'FORBIDDEN'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE';

export class StoreError extends CodedError<StoreErrorCode> {}

/** Malformed input: an identifier, a node, a path. Nothing was written. */
export class InvalidInputError extends StoreError {
  constructor(message: string) {
    super('BAD_REQUEST', message);
  }
}

/** An unknown session, node, commit or project, or one that belongs to someone else. */
export class NotFoundError extends StoreError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

/** The request contradicts the current state (same id other content, running turn, frozen project). */
export class ConflictError extends StoreError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

/** A path outside the allowed roots, or a repository whose config could run commands. */
export class ForbiddenPathError extends StoreError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/** The action cannot run in the current state of the world (missing folder, dirty tree for undo). */
export class PreconditionError extends StoreError {
  constructor(message: string) {
    super('PRECONDITION_FAILED', message);
  }
}

/** Input over a size limit (a message larger than the store's cap). Nothing was written. */
export class PayloadTooLargeError extends StoreError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', message);
  }
}
