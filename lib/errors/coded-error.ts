/**
 * The base of lib/store's and lib/auth's typed errors: `code` is a tRPC code name, mapped to a
 * status in one place (server/api/errors.ts); nothing else inspects messages.
 */
export class CodedError<Code extends string> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}
