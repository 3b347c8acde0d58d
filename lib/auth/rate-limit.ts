/**
 * Failed sign-in limiter. Callers ask `check` BEFORE any password hashing, so a flood of guesses
 * costs the server nothing. Failures are counted in a sliding window per client address, per
 * email and address together, and per email from anywhere. Only the first two lock: whoever
 * guesses from one address locks out that address, never the account's owner elsewhere. The
 * per-email count only spaces attempts out (a guess every `delayMs` across all addresses), so a
 * correct password still gets in after a short wait however many addresses are guessing.
 */
export interface RateLimitRule {
  /** failures allowed in the window; the next attempt is refused */
  max: number;
  windowMs: number;
}

export interface SignInRules {
  /** failures from one address over any emails (a sweep over many accounts) */
  ip: RateLimitRule;
  /** failures of one email from one address: that address is refused for that email */
  pair: RateLimitRule;
  /** failures of one email from anywhere: past `max`, one attempt per `delayMs` */
  account: RateLimitRule & { delayMs: number };
}

export interface RateLimitDecision {
  allowed: boolean;
  /** when refused: how long until an attempt is allowed again */
  retryAfterMs: number;
}

const QUARTER_HOUR = 15 * 60_000;

export const DEFAULT_SIGN_IN_RULES: SignInRules = {
  // Wide, so people behind one NAT can all sign in, but a sweep over many emails stops.
  ip: { max: 50, windowMs: QUARTER_HOUR },
  // A handful of guesses per quarter hour at one account from one address.
  pair: { max: 10, windowMs: QUARTER_HOUR },
  // Guessing one account from many addresses: a guess every 5 s at most.
  account: { max: 10, windowMs: QUARTER_HOUR, delayMs: 5_000 },
};

// Bound memory under a flood of distinct keys: the oldest keys are dropped first.
const MAX_KEYS = 50_000;

export class SignInRateLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly rules: SignInRules = DEFAULT_SIGN_IN_RULES,
    private readonly now: () => number = Date.now,
  ) {}

  check(email: string, ip: string | null): RateLimitDecision {
    const now = this.now();
    let retryAfterMs = 0;
    for (const [key, rule] of this.lockKeys(email, ip)) {
      const recent = this.recent(key, rule);
      if (recent.length >= rule.max) retryAfterMs = Math.max(retryAfterMs, recent[0]! + rule.windowMs - now);
    }
    const { account } = this.rules;
    const recent = this.recent(accountKey(email), account);
    if (recent.length >= account.max) {
      const since = now - recent[recent.length - 1]!;
      if (since < account.delayMs) retryAfterMs = Math.max(retryAfterMs, account.delayMs - since);
    }
    return { allowed: retryAfterMs === 0, retryAfterMs };
  }

  recordFailure(email: string, ip: string | null): void {
    const keys: Array<[string, RateLimitRule]> = [...this.lockKeys(email, ip), [accountKey(email), this.rules.account]];
    for (const [key, rule] of keys) {
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

  /** The owner got in: their own address and the account's count start again. */
  recordSuccess(email: string, ip: string | null): void {
    this.failures.delete(pairKey(email, ip));
    this.failures.delete(accountKey(email));
  }

  private lockKeys(email: string, ip: string | null): Array<[string, RateLimitRule]> {
    const keys: Array<[string, RateLimitRule]> = [[pairKey(email, ip), this.rules.pair]];
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

function accountKey(email: string): string {
  return `email:${normaliseKey(email)}`;
}

// Without a known address (no proxy header in tests or dev) the pair is the email alone.
function pairKey(email: string, ip: string | null): string {
  return `pair:${ip ?? '-'}:${normaliseKey(email)}`;
}
