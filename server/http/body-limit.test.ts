import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, limitBody } from './body-limit.js';

function chunked(parts: number, size: number): Request {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < parts) controller.enqueue(new Uint8Array(size));
      else controller.close();
    },
  });
  return new Request('http://x/api', { method: 'POST', body, duplex: 'half' } as RequestInit);
}

describe('limitBody', () => {
  it('passes a body within the limit through unchanged', async () => {
    const req = await limitBody(new Request('http://x/api', { method: 'POST', body: '{"a":1}' }), 100);
    expect(await req.json()).toEqual({ a: 1 });
  });

  it('refuses a declared length over the limit without reading', async () => {
    const req = new Request('http://x/api', { method: 'POST', body: 'x'.repeat(10), headers: { 'content-length': '1000' } });
    await expect(limitBody(req, 100)).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it('refuses a chunked body once it passes the limit', async () => {
    await expect(limitBody(chunked(5, 30), 100)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect((await (await limitBody(chunked(3, 30), 100)).arrayBuffer()).byteLength).toBe(90);
  });

  it('leaves a bodiless request alone', async () => {
    const req = new Request('http://x/api');
    expect(await limitBody(req, 1)).toBe(req);
  });
});
