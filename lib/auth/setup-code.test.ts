import { describe, expect, it } from 'vitest';
import { newSetupCode, setupCodeMatches } from './setup-code.js';

describe('setup code', () => {
  it('has three groups of four unambiguous characters', () => {
    const code = newSetupCode();
    expect(code).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    expect(newSetupCode()).not.toBe(code);
  });

  it('matches ignoring case, spaces and dashes, and nothing else', () => {
    expect(setupCodeMatches('ABCD-EFGH-JKMN', 'abcd efgh jkmn')).toBe(true);
    expect(setupCodeMatches('ABCD-EFGH-JKMN', 'ABCDEFGHJKMP')).toBe(false);
    expect(setupCodeMatches('ABCD-EFGH-JKMN', '')).toBe(false);
  });
});
