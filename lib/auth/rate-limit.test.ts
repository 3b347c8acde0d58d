import { describe, expect, it } from 'vitest';
import { SignInRateLimiter } from './rate-limit.js';

function limiter() {
  let now = 1_000_000;
  const l = new SignInRateLimiter({ email: { max: 3, windowMs: 60_000 }, ip: { max: 5, windowMs: 60_000 } }, () => now);
  return { l, advance: (ms: number) => (now += ms) };
}

describe('SignInRateLimiter', () => {
  it('refuses an email after max failures, whatever the case of the address', () => {
    const { l } = limiter();
    for (let i = 0; i < 3; i++) {
      expect(l.check('a@x.org', '1.1.1.1').allowed).toBe(true);
      l.recordFailure('A@x.org ', '1.1.1.1');
    }
    const decision = l.check('a@x.org', '2.2.2.2');
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterMs).toBe(60_000);
  });

  it('refuses an address sweeping over many emails', () => {
    const { l } = limiter();
    for (let i = 0; i < 5; i++) l.recordFailure(`u${i}@x.org`, '9.9.9.9');
    expect(l.check('fresh@x.org', '9.9.9.9').allowed).toBe(false);
    expect(l.check('fresh@x.org', '8.8.8.8').allowed).toBe(true);
  });

  it('forgets failures once the window has passed', () => {
    const { l, advance } = limiter();
    for (let i = 0; i < 3; i++) l.recordFailure('a@x.org', null);
    advance(59_999);
    expect(l.check('a@x.org', null).allowed).toBe(false);
    advance(2);
    expect(l.check('a@x.org', null).allowed).toBe(true);
  });

  it('clears the email count on success', () => {
    const { l } = limiter();
    for (let i = 0; i < 2; i++) l.recordFailure('a@x.org', null);
    l.recordSuccess('a@x.org');
    l.recordFailure('a@x.org', null);
    l.recordFailure('a@x.org', null);
    expect(l.check('a@x.org', null).allowed).toBe(true);
  });
});
