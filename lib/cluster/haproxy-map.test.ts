import { describe, expect, it } from 'vitest';
import { mapTarget, parseShowMap } from './haproxy-map.js';

describe('HAProxy map helpers', () => {
  it('turns an instance URL into the address set-dst takes', () => {
    expect(mapTarget('http://127.0.0.1:5031')).toBe('127.0.0.1:5031');
    expect(mapTarget('http://10.0.0.5')).toBe('10.0.0.5:80');
    expect(mapTarget('https://10.0.0.5')).toBe('10.0.0.5:443');
    expect(mapTarget('http://[::1]:3000')).toBe('::1:3000');
  });

  it('reads `show map` answers, ignoring anything that is not an entry', () => {
    const answer = '0x55d1c2a0 0123456789abcdef 127.0.0.1:5031\n0x55d1c2b0 fedcba9876543210 127.0.0.1:5032\n\n';
    expect(parseShowMap(answer)).toEqual(new Map([
      ['0123456789abcdef', '127.0.0.1:5031'],
      ['fedcba9876543210', '127.0.0.1:5032'],
    ]));
    expect(parseShowMap('Unknown map identifier. Please use #<id> or <file>.\n').size).toBe(0);
  });
});
