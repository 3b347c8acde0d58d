import { describe, expect, it } from 'vitest';
import { decodePathSegment } from './decode-path-segment';

describe('decodePathSegment', () => {
  it('decodes well-formed escapes and refuses malformed ones with null, never a throw', () => {
    expect(decodePathSegment('s%20one')).toBe('s one');
    expect(decodePathSegment('%E0%A4%A4')).toBe('\u0924');
    for (const malformed of ['%E0%A4%A', '%', '%zz', '%C0%AF', '%ED%A0%80', '%F4%90%80%80']) expect(decodePathSegment(malformed), malformed).toBeNull();
  });
});
