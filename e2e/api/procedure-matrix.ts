/**
 * Every tRPC procedure with who may call it and one valid and one invalid input. The access
 * matrix spec runs every row over HTTP, and server/api/procedure-matrix.test.ts fails when the
 * router has a procedure without a row here: a new procedure cannot ship without its checks.
 */
export type Access =
  /** anyone */
  | 'public'
  /** cookie, personal API token or CLI */
  | 'protected'
  /** cookie (or CLI), never a personal API token */
  | 'cookie'
  /** a signed-in admin */
  | 'admin';

export interface ProcedureRow {
  path: string;
  type: 'query' | 'mutation';
  access: Access;
  /** an input that passes validation (may still fail later, e.g. NOT_FOUND); undefined = no input */
  valid?: unknown;
  /** an input that must be refused with 400 and a message, writing nothing */
  invalid?: unknown;
}

/**
 * Stands for a session id in an input: the spec replaces it with a fresh session of whoever
 * calls, so `invalid` inputs fail on their other fields, not on a missing session.
 */
export const SESSION = '$session';

export function usesSession(input: unknown): boolean {
  return JSON.stringify(input ?? null).includes(JSON.stringify(SESSION));
}

/** `input` with every SESSION placeholder replaced by `sessionId`. */
export function withSession(input: unknown, sessionId: string): unknown {
  if (input === undefined) return undefined;
  return JSON.parse(JSON.stringify(input), (_key, value: unknown) => (value === SESSION ? sessionId : value));
}

const NO_SHA = '0'.repeat(40);

export const PROCEDURES: ProcedureRow[] = [
  { path: 'auth.status', type: 'query', access: 'public' },
  { path: 'auth.setup', type: 'mutation', access: 'public', valid: { code: 'AAAA-BBBB-CCCC', email: 'x@e2e.test', password: 'password-1' }, invalid: { code: '', email: 'nope', password: '1' } },
  { path: 'auth.signup', type: 'mutation', access: 'public', valid: { email: 'signup-matrix@e2e.test', password: 'password-1' }, invalid: { email: 'nope', password: 'password-1' } },
  { path: 'user.me', type: 'query', access: 'protected' },
  { path: 'user.changePassword', type: 'mutation', access: 'cookie', valid: { current: 'wrong-password', next: 'password-2' }, invalid: { current: 'x', next: 'short' } },
  { path: 'token.create', type: 'mutation', access: 'cookie', valid: { name: 'matrix' }, invalid: { name: '' } },
  { path: 'token.list', type: 'query', access: 'cookie' },
  { path: 'token.revoke', type: 'mutation', access: 'cookie', valid: { id: '000000000000' }, invalid: { id: '../x' } },
  { path: 'admin.createUser', type: 'mutation', access: 'admin', valid: { email: 'matrix-created@e2e.test', password: 'password-1' }, invalid: { email: 'matrix-bad@e2e.test', password: 'short' } },
  { path: 'admin.listUsers', type: 'query', access: 'admin' },
  { path: 'admin.setDisabled', type: 'mutation', access: 'admin', valid: { userId: '0000000000000000', disabled: true }, invalid: { userId: 'x', disabled: 'yes' } },
  { path: 'admin.resetPassword', type: 'mutation', access: 'admin', valid: { userId: '0000000000000000', password: 'password-1' }, invalid: { userId: '0000000000000000', password: 'short' } },
  { path: 'admin.setSignup', type: 'mutation', access: 'admin', valid: { open: false }, invalid: { open: 'yes' } },

  { path: 'session.create', type: 'mutation', access: 'protected', valid: { title: 'matrix' }, invalid: { id: '../etc' } },
  { path: 'session.list', type: 'query', access: 'protected', valid: { limit: 10 }, invalid: { limit: 201 } },
  { path: 'session.get', type: 'query', access: 'protected', valid: { id: SESSION }, invalid: { id: 'not an id!' } },
  { path: 'session.update', type: 'mutation', access: 'protected', valid: { id: SESSION, pinned: true }, invalid: { id: SESSION, title: '   ' } },
  { path: 'session.regenerateTitle', type: 'mutation', access: 'protected', valid: { id: SESSION }, invalid: { id: 42 } },
  { path: 'session.setArchived', type: 'mutation', access: 'protected', valid: { id: SESSION, archived: true }, invalid: { id: SESSION, archived: 'yes' } },
  { path: 'session.delete', type: 'mutation', access: 'protected', valid: { id: SESSION }, invalid: { id: '' } },
  { path: 'session.bulk', type: 'mutation', access: 'protected', valid: { ids: [SESSION], action: 'markRead' }, invalid: { ids: [SESSION], action: 'explode' } },
  { path: 'session.setWorkdirs', type: 'mutation', access: 'protected', valid: { id: SESSION, workdirs: [] }, invalid: { id: SESSION, workdirs: 'x' } },

  { path: 'message.append', type: 'mutation', access: 'protected', valid: { sessionId: SESSION, message: { role: 'user', content: 'hi' } }, invalid: { sessionId: SESSION, message: { role: 'robot', content: 'x' } } },
  { path: 'message.branch', type: 'query', access: 'protected', valid: { sessionId: SESSION }, invalid: { sessionId: SESSION, headId: '../x' } },
  { path: 'message.nodes', type: 'query', access: 'protected', valid: { sessionId: SESSION }, invalid: { sessionId: 'projects' } },

  { path: 'branch.list', type: 'query', access: 'protected', valid: { sessionId: SESSION }, invalid: {} },
  { path: 'branch.setHead', type: 'mutation', access: 'protected', valid: { sessionId: SESSION, headId: 'nope' }, invalid: { sessionId: SESSION, headId: 7 } },
  { path: 'branch.tipOf', type: 'query', access: 'protected', valid: { sessionId: SESSION, nodeId: 'nope' }, invalid: { sessionId: SESSION, nodeId: '../x' } },
  { path: 'branch.retry', type: 'mutation', access: 'protected', valid: { sessionId: SESSION, assistantId: 'nope' }, invalid: { sessionId: SESSION } },

  { path: 'turn.begin', type: 'mutation', access: 'protected', valid: { sessionId: SESSION }, invalid: { sessionId: ['x'] } },
  { path: 'turn.finalize', type: 'mutation', access: 'protected', valid: { sessionId: SESSION }, invalid: { sessionId: SESSION, status: 'running' } },
  { path: 'turn.undo', type: 'mutation', access: 'protected', valid: { sessionId: SESSION, turn: 1 }, invalid: { sessionId: SESSION, turn: 0 } },
  { path: 'turn.redo', type: 'mutation', access: 'protected', valid: { sessionId: SESSION, turn: 1 }, invalid: { sessionId: SESSION, turn: 1.5 } },

  { path: 'project.list', type: 'query', access: 'protected' },
  { path: 'project.create', type: 'mutation', access: 'protected', valid: { path: 'matrix-project' }, invalid: { path: '' } },
  { path: 'project.relocate', type: 'mutation', access: 'protected', valid: { id: 'nope', path: '.' }, invalid: { id: 'nope', path: '.', sessionId: '../x' } },
  { path: 'project.unregister', type: 'mutation', access: 'protected', valid: { id: 'nope' }, invalid: { id: '../etc' } },
  { path: 'project.setAutoCommit', type: 'mutation', access: 'protected', valid: { id: 'nope', on: false }, invalid: { id: 'nope', on: 'no' } },
  { path: 'project.setForSession', type: 'mutation', access: 'protected', valid: { sessionId: SESSION, projectId: 'default' }, invalid: { sessionId: SESSION, projectId: '..' } },
  { path: 'project.commits', type: 'query', access: 'protected', valid: { id: 'default' }, invalid: { id: 'default', limit: 201 } },
  { path: 'project.commitDiff', type: 'query', access: 'protected', valid: { id: 'default', sha: NO_SHA }, invalid: { id: 'default', sha: 'HEAD' } },

  { path: 'timeline.list', type: 'query', access: 'protected', valid: { sessionId: SESSION }, invalid: { sessionId: SESSION, limit: 201 } },
  { path: 'timeline.diff', type: 'query', access: 'protected', valid: { sessionId: SESSION, sha: NO_SHA }, invalid: { sessionId: SESSION, sha: 'HEAD' } },
  { path: 'timeline.at', type: 'query', access: 'protected', valid: { sessionId: SESSION, sha: NO_SHA }, invalid: { sessionId: SESSION, sha: 'abc' } },
  { path: 'timeline.graph', type: 'query', access: 'protected', valid: { sessionId: SESSION }, invalid: { sessionId: SESSION, extra: 1 } },

  { path: 'chat.send', type: 'mutation', access: 'protected', valid: { content: 'matrix hello' }, invalid: { content: '   ' } },
  { path: 'chat.retry', type: 'mutation', access: 'protected', valid: { sessionId: SESSION, assistantId: 'nope' }, invalid: { sessionId: SESSION, assistantId: '../x' } },
  { path: 'chat.cancel', type: 'mutation', access: 'protected', valid: { sessionId: SESSION }, invalid: { sessionId: SESSION, extra: 1 } },
  { path: 'chat.state', type: 'query', access: 'protected', valid: { sessionId: SESSION }, invalid: { sessionId: 'projects' } },
  { path: 'chat.modelStatus', type: 'query', access: 'protected' },
  { path: 'models.get', type: 'query', access: 'admin' },
  { path: 'models.set', type: 'mutation', access: 'admin', valid: { detectLocal: false }, invalid: { baseUrl: 'ftp://x' } },
  { path: 'models.detect', type: 'mutation', access: 'admin' },
];
