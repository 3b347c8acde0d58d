import { describe, expect, it } from 'vitest';
import { assertPasswordPolicy, hashPassword, verifyPassword } from './password.js';

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same password')).not.toBe(await hashPassword('same password'));
  });

  it('treats a malformed stored hash as a mismatch, not a crash', async () => {
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$a$b$c$d$e')).toBe(false);
  });

  it('enforces length in code points', () => {
    expect(() => assertPasswordPolicy('short')).toThrow(/at least 8/);
    expect(() => assertPasswordPolicy('😀😀😀😀😀😀😀')).toThrow(/at least 8/); // 14 UTF-16 units, 7 code points
    expect(() => assertPasswordPolicy('x'.repeat(1025))).toThrow(/at most 1024/);
    expect(() => assertPasswordPolicy('12345678')).not.toThrow();
  });
});
