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
];
