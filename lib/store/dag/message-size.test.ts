import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../errors.js';
import { assertMessageSize, DEFAULT_MAX_MESSAGE_BYTES, formatBytes, maxMessageBytesFromEnv, messageBytes } from './message-size.js';

describe('the message size cap', () => {
  it('counts UTF-8 bytes of the content, the input and the metadata', () => {
    expect(messageBytes({ content: 'héllo' })).toBe(6);
    expect(messageBytes({ content: { ok: true }, input: [1, 2], metadata: { a: 'b' } })).toBe(11 + 5 + 9);
    expect(messageBytes({ content: '', input: null })).toBe(0);
  });

  it('refuses a message one byte over the limit with PAYLOAD_TOO_LARGE and says both sizes', () => {
    expect(() => assertMessageSize({ content: 'x'.repeat(2048) }, 2048)).not.toThrow();
    let thrown: unknown;
    try {
      assertMessageSize({ content: 'x'.repeat(2048), metadata: {} }, 2048);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PayloadTooLargeError);
    expect((thrown as PayloadTooLargeError).code).toBe('PAYLOAD_TOO_LARGE');
    expect((thrown as Error).message).toBe('message is 2.0 KiB (content, input and metadata); the limit is 2 KiB. Save large output as an attachment instead.');
    // The input counts: a small content cannot smuggle a large payload.
    expect(() => assertMessageSize({ content: 'hi', input: 'y'.repeat(5000) }, 4096)).toThrow(PayloadTooLargeError);
  });

  it('takes OPENPROGRAM_MAX_MESSAGE_BYTES when it is a sensible whole number, else 1 MiB', () => {
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(1024 * 1024);
    expect(maxMessageBytesFromEnv({})).toBe(DEFAULT_MAX_MESSAGE_BYTES);
    expect(maxMessageBytesFromEnv({ OPENPROGRAM_MAX_MESSAGE_BYTES: '65536' })).toBe(65536);
    for (const bad of ['0', '-5', '12.5', 'lots', '100']) expect(maxMessageBytesFromEnv({ OPENPROGRAM_MAX_MESSAGE_BYTES: bad })).toBe(DEFAULT_MAX_MESSAGE_BYTES);
  });

  it('formats sizes as a person reads them', () => {
    expect(formatBytes(500)).toBe('500 bytes');
    expect(formatBytes(1024 * 1024)).toBe('1 MiB');
    expect(formatBytes(20.5 * 1024 * 1024)).toBe('20.5 MiB');
  });
});
