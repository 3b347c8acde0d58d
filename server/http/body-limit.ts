/** DESIGN §5: request bodies over 25 MB are refused. */
export const MAX_BODY_BYTES = 25 * 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor() {
    super(`request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`);
  }
}

/**
 * The request with its body read into memory, or BodyTooLargeError as soon as it passes the limit:
 * a declared Content-Length over it is refused without reading, a chunked body is counted as it comes.
 */
export async function limitBody(req: Request, limit = MAX_BODY_BYTES): Promise<Request> {
  if (req.body === null) return req;
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new BodyTooLargeError();
    }
    chunks.push(value);
  }
  return new Request(req.url, { method: req.method, headers: req.headers, body: Buffer.concat(chunks), signal: req.signal });
}

/** The answer in tRPC's error envelope, so clients handle it like any other error. */
export function tooLargeResponse(): Response {
  return Response.json(
    { error: { message: new BodyTooLargeError().message, code: -32013, data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 } } },
    { status: 413, headers: { connection: 'close' } },
  );
}
