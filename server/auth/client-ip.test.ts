import { describe, expect, it } from 'vitest';
import { clientIp } from './client-ip.js';

describe('clientIp', () => {
  it('takes the last x-forwarded-for entry, from Headers or a plain object', () => {
    expect(clientIp(new Headers({ 'x-forwarded-for': '6.6.6.6, 10.0.0.1' }))).toBe('10.0.0.1');
    expect(clientIp({ 'x-forwarded-for': '127.0.0.1' })).toBe('127.0.0.1');
    expect(clientIp(new Headers())).toBeNull();
    expect(clientIp({})).toBeNull();
  });
});
