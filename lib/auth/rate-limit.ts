/**
 * Failed sign-in limiter. Callers ask `check` BEFORE any password hashing, so a flood of guesses
 * costs the server nothing. Failures are counted per email and per client address in a sliding
 * window; a success clears the email's count.
 */
export interface RateLimitRule {
  /** failures allowed in the window; the next attempt is refused */
  max: number;
  windowMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** when refused: how long until the oldest counted failure leaves the window */
  retryAfterMs: number;
}

export const DEFAULT_SIGN_IN_RULES = {
  // Per email: a handful of guesses per quarter hour, whatever the address they come from.
  email: { max: 10, windowMs: 15 * 60_000 },
  // Per address: wider, so people behind one NAT can all sign in, but a sweep over many emails stops.
  ip: { max: 50, windowMs: 15 * 60_000 },
} satisfies Record<string, RateLimitRule>;

// Bound memory under a flood of distinct keys: the oldest keys are dropped first.
const MAX_KEYS = 50_000;

export class SignInRateLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly rules: { email: RateLimitRule; ip: RateLimitRule } = DEFAULT_SIGN_IN_RULES,
    private readonly now: () => number = Date.now,
  ) {}

  check(email: string, ip: string | null): RateLimitDecision {
    let retryAfterMs = 0;
    for (const [key, rule] of this.keys(email, ip)) {
      const recent = this.recent(key, rule);
      if (recent.length >= rule.max) {
        retryAfterMs = Math.max(retryAfterMs, recent[0]! + rule.windowMs - this.now());
      }
    }
    return { allowed: retryAfterMs === 0, retryAfterMs };
  }

  recordFailure(email: string, ip: string | null): void {
    for (const [key, rule] of this.keys(email, ip)) {
      const recent = this.recent(key, rule);
      recent.push(this.now());
      this.failures.delete(key); // re-insert so Map order is least-recently-failed first
      this.failures.set(key, recent);
    }
    while (this.failures.size > MAX_KEYS) {
      const oldest = this.failures.keys().next().value;
      if (oldest === undefined) break;
      this.failures.delete(oldest);
    }
  }

  recordSuccess(email: string): void {
    this.failures.delete(`email:${normaliseKey(email)}`);
  }

  private keys(email: string, ip: string | null): Array<[string, RateLimitRule]> {
    const keys: Array<[string, RateLimitRule]> = [[`email:${normaliseKey(email)}`, this.rules.email]];
    if (ip) keys.push([`ip:${ip}`, this.rules.ip]);
    return keys;
  }

  private recent(key: string, rule: RateLimitRule): number[] {
    const since = this.now() - rule.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }
}

function normaliseKey(email: string): string {
  return email.trim().toLowerCase();
}
