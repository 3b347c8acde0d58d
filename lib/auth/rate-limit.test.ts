import { describe, expect, it } from 'vitest';
import { SignInRateLimiter } from './rate-limit.js';

function limiter() {
  let now = 1_000_000;
  const l = new SignInRateLimiter(
    { ip: { max: 5, windowMs: 60_000 }, pair: { max: 3, windowMs: 60_000 }, account: { max: 3, windowMs: 60_000, delayMs: 2_000 } },
    () => now,
  );
  return { l, advance: (ms: number) => (now += ms) };
}

describe('SignInRateLimiter', () => {
  it('locks one email from one address after max failures, whatever the case of the address', () => {
    const { l } = limiter();
    for (let i = 0; i < 3; i++) {
      expect(l.check('a@x.org', '1.1.1.1').allowed).toBe(true);
      l.recordFailure('A@x.org ', '1.1.1.1');
    }
    const decision = l.check('a@x.org', '1.1.1.1');
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterMs).toBe(60_000);
  });

  it('never locks the account out elsewhere: another address gets in after a short delay', () => {
    const { l, advance } = limiter();
    for (let i = 0; i < 3; i++) l.recordFailure('a@x.org', '6.6.6.6');
    // At once: the per-account throttle spaces attempts out.
    expect(l.check('a@x.org', '2.2.2.2')).toEqual({ allowed: false, retryAfterMs: 2_000 });
    advance(2_000);
    expect(l.check('a@x.org', '2.2.2.2').allowed).toBe(true);
    // The guessing address stays locked for the whole window.
    expect(l.check('a@x.org', '6.6.6.6').allowed).toBe(false);
  });

  it('many addresses guessing one account get one guess per delay, not a lockout', () => {
    const { l, advance } = limiter();
    for (let i = 0; i < 10; i++) {
      l.recordFailure('a@x.org', `10.0.0.${i}`);
      advance(100);
    }
    expect(l.check('a@x.org', '10.0.1.1').allowed).toBe(false);
    advance(1_900);
    expect(l.check('a@x.org', '10.0.1.1').allowed).toBe(true);
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

  it('clears the email and its address on success', () => {
    const { l } = limiter();
    for (let i = 0; i < 2; i++) l.recordFailure('a@x.org', '1.1.1.1');
    l.recordSuccess('a@x.org', '1.1.1.1');
    l.recordFailure('a@x.org', '1.1.1.1');
    l.recordFailure('a@x.org', '1.1.1.1');
    expect(l.check('a@x.org', '1.1.1.1').allowed).toBe(true);
  });
});
