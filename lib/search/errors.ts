import { CodedError } from '../errors/coded-error.js';

/** Bad search input (an empty or too long query, a foreign cursor): BAD_REQUEST, nothing read. */
export class SearchInputError extends CodedError<'BAD_REQUEST'> {
  constructor(message: string) {
    super('BAD_REQUEST', message);
  }
}
