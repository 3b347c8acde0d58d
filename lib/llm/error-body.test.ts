import { describe, expect, it } from 'vitest';
import { errorBodyMessage } from './error-body.js';

describe('errorBodyMessage', () => {
  it('takes the message out of the JSON shapes servers answer with', () => {
    expect(errorBodyMessage('{"error":{"message":"model not found","type":"invalid_request_error"}}')).toBe('model not found');
    expect(errorBodyMessage('{"error":"rate limited"}')).toBe('rate limited');
    expect(errorBodyMessage('{"detail":"Not Found"}')).toBe('Not Found');
    expect(errorBodyMessage('{"message":"bad key"}')).toBe('bad key');
  });

  it('keeps a text body, without markup, on one line, and cut', () => {
    expect(errorBodyMessage('<html><body><h1>502 Bad Gateway</h1>\n</body></html>')).toBe('502 Bad Gateway');
    expect(errorBodyMessage('{"unrelated":1}')).toBe('{"unrelated":1}');
    expect(errorBodyMessage('x'.repeat(500), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(errorBodyMessage('')).toBe('');
  });
});
