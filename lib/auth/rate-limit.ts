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

/**
 * The limiter AuthStore asks: in memory by default, shared through Postgres in cluster mode
 * (lib/cluster), where a sign-in may reach any instance.
 */
export interface SignInLimits {
  check(email: string, ip: string | null): RateLimitDecision | Promise<RateLimitDecision>;
  recordFailure(email: string, ip: string | null): void | Promise<void>;
  recordSuccess(email: string, ip: string | null): void | Promise<void>;
}

/** The keys one attempt is counted under, each with its rule. */
export function signInKeys(rules: SignInRules, email: string, ip: string | null): { locks: Array<[string, RateLimitRule]>; account: [string, SignInRules['account']] } {
  const locks: Array<[string, RateLimitRule]> = [[pairKey(email, ip), rules.pair]];
  if (ip) locks.push([`ip:${ip}`, rules.ip]);
  return { locks, account: [accountKey(email), rules.account] };
}

/** The decision from the failures still inside each key's window (oldest first). */
export function decideSignIn(rules: SignInRules, email: string, ip: string | null, recent: (key: string, rule: RateLimitRule) => number[], now: number): RateLimitDecision {
  const keys = signInKeys(rules, email, ip);
  let retryAfterMs = 0;
  for (const [key, rule] of keys.locks) {
    const times = recent(key, rule);
    if (times.length >= rule.max) retryAfterMs = Math.max(retryAfterMs, times[0]! + rule.windowMs - now);
  }
  const [key, account] = keys.account;
  const times = recent(key, account);
  if (times.length >= account.max) {
    const since = now - times[times.length - 1]!;
    if (since < account.delayMs) retryAfterMs = Math.max(retryAfterMs, account.delayMs - since);
  }
  return { allowed: retryAfterMs === 0, retryAfterMs };
}

// Bound memory under a flood of distinct keys: the oldest keys are dropped first.
const MAX_KEYS = 50_000;

export class SignInRateLimiter implements SignInLimits {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly rules: SignInRules = DEFAULT_SIGN_IN_RULES,
    private readonly now: () => number = Date.now,
  ) {}

  check(email: string, ip: string | null): RateLimitDecision {
    return decideSignIn(this.rules, email, ip, (key, rule) => this.recent(key, rule), this.now());
  }

  recordFailure(email: string, ip: string | null): void {
    const { locks, account } = signInKeys(this.rules, email, ip);
    const keys: Array<[string, RateLimitRule]> = [...locks, account];
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

export function accountKey(email: string): string {
  return `email:${normaliseKey(email)}`;
}

// Without a known address (no proxy header in tests or dev) the pair is the email alone.
export function pairKey(email: string, ip: string | null): string {
  return `pair:${ip ?? '-'}:${normaliseKey(email)}`;
}
