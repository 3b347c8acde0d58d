import { randomBytes } from 'node:crypto';
import { InvalidInputError } from './errors.js';

// DESIGN §4.10: every identifier is checked before any disk or git access.
// The server's zod schemas are built from the same patterns (server/api/schemas.ts).
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
export const NODE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const PROJECT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const COMMIT_ID_PATTERN = /^[0-9a-f]{40}$/;
export const RESERVED_SESSION_IDS: ReadonlySet<string> = new Set(['projects']);
/** The project every session belongs to until it is bound to another (FORMAT.md `project_id`). */
export const DEFAULT_PROJECT_ID = 'default';
const SESSION_ID = SESSION_ID_PATTERN;
const NODE_ID = NODE_ID_PATTERN;
const PROJECT_ID = PROJECT_ID_PATTERN;
const COMMIT_ID = COMMIT_ID_PATTERN;

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value) && !RESERVED_SESSION_IDS.has(value);
}

export function assertSessionId(value: unknown): string {
  if (!isSessionId(value)) throw new InvalidInputError(`invalid session id: ${describe(value)}`);
  return value;
}

function isNodeId(value: unknown): value is string {
  return typeof value === 'string' && NODE_ID.test(value);
}

export function assertNodeId(value: unknown): string {
  if (!isNodeId(value)) throw new InvalidInputError(`invalid node id: ${describe(value)}`);
  return value;
}

export function isProjectId(value: unknown): value is string {
  return typeof value === 'string' && PROJECT_ID.test(value);
}

export function assertProjectId(value: unknown): string {
  if (!isProjectId(value)) throw new InvalidInputError(`invalid project id: ${describe(value)}`);
  return value;
}

export function assertCommitId(value: unknown): string {
  if (typeof value !== 'string' || !COMMIT_ID.test(value)) {
    throw new InvalidInputError(`invalid commit id: ${describe(value)}`);
  }
  return value;
}

/** A turn number: a positive integer (turn 1 is the first turn of a session). */
export function assertTurnNumber(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new InvalidInputError(`invalid turn number: ${describe(value)}`);
  return value;
}

/** 12 hex characters, the node id OpenProgram generates. */
export function newNodeId(): string {
  return randomBytes(6).toString('hex');
}

export function newSessionId(): string {
  return randomBytes(8).toString('hex');
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
