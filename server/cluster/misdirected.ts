/**
 * The one 421 of cluster mode (docs/decisions.md, "One move gate for every writer, and one 421"): every path that finds a user owned by
 * another instance (the ownership gate before any route, a moved-away user's marker in tRPC,
 * the plain routes, the event stream, MCP and the recording proxy) answers with these headers
 * and this body, so a client reads the owner the same way wherever it asked.
 */

/** The owner's instance id. */
export const OWNER_HEADER = 'x-entity-memory-owner';
/** The owner's base URL, when this instance knows it. */
export const OWNER_URL_HEADER = 'x-entity-memory-owner-url';

export interface MisdirectedOwner {
  /** the instance id (a shard name) */
  instance: string;
  /** its base URL; null when this instance does not know it yet */
  url: string | null;
  /** the ownership epoch the answer was decided at */
  epoch: number;
}

export interface MisdirectedBody {
  error: {
    message: string;
    data: { code: 'MISDIRECTED_REQUEST'; httpStatus: 421; owner: MisdirectedOwner };
  };
}

export function misdirectedMessage(owner: MisdirectedOwner): string {
  return `this user is served by instance ${owner.instance}${owner.url ? ` (${owner.url})` : ''}; send the request there`;
}

export function misdirectedHeaders(owner: MisdirectedOwner): Record<string, string> {
  return {
    [OWNER_HEADER]: owner.instance,
    ...(owner.url ? { [OWNER_URL_HEADER]: owner.url } : {}),
    'cache-control': 'no-store',
  };
}

export function misdirectedBody(owner: MisdirectedOwner): MisdirectedBody {
  return { error: { message: misdirectedMessage(owner), data: { code: 'MISDIRECTED_REQUEST', httpStatus: 421, owner } } };
}

/** Status, headers (with the JSON content type) and body of the 421. */
export function misdirectedAnswer(owner: MisdirectedOwner): { status: 421; headers: Record<string, string>; body: MisdirectedBody } {
  return { status: 421, headers: { ...misdirectedHeaders(owner), 'content-type': 'application/json' }, body: misdirectedBody(owner) };
}

/** The 421 as a fetch Response (route handlers). */
export function misdirectedResponse(owner: MisdirectedOwner): Response {
  const answer = misdirectedAnswer(owner);
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
}

/**
 * Carried as a TRPCError's cause: the API's error formatter gives its body the same `data`
 * (code, httpStatus, owner) as every other 421, inside tRPC's own error envelope.
 */
export class MisdirectedError extends Error {
  constructor(readonly owner: MisdirectedOwner) {
    super(misdirectedMessage(owner));
    this.name = 'MisdirectedError';
  }
}
