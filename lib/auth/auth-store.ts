import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync, DIR_MODE } from '../fs/atomic-write.js';
import { ApiTokenStore } from './api-tokens.js';
import { AuthError } from './errors.js';
import { SignInRateLimiter, type SignInLimits } from './rate-limit.js';
import { loadOrCreateAuthSecret } from './secret.js';
import { newSetupCode, setupCodeMatches } from './setup-code.js';
import { CLI_TOKEN_PREFIX, newSecretToken, safeEqual } from './token-secret.js';
import type { TokenAccess } from './token-scopes.js';
import { UserStore, type PublicUser, type UserRecord } from './users.js';

export interface AuthStoreOptions {
  /** NEXTAUTH_SECRET; when unset the secret is generated into `<authDir>/secret` */
  secret?: string;
  now?: () => number;
  limiter?: SignInLimits;
  /**
   * Cluster mode (lib/cluster): users and tokens from another backend (Postgres), already
   * loaded. Without it they live in `<authDir>/users.json` and `tokens.json`.
   */
  backend?: { users: UserStore; tokens: ApiTokenStore };
}

export type SignInResult =
  | { ok: true; user: UserRecord }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterMs: number };

/**
 * Users, API tokens, the signing secret, the first-run setup code and the CLI's token: by default
 * everything under `<DATA>/auth/`; in cluster mode users, tokens and the sign-in limits come from
 * Postgres (`options.backend`, `options.limiter`) while reads stay synchronous on their replica.
 * One instance per process (the server keeps it on globalThis).
 */
export class AuthStore {
  readonly users: UserStore;
  readonly tokens: ApiTokenStore;
  readonly secret: string;
  private readonly limiter: SignInLimits;
  private setupCode: string | null = null;
  private cliToken: string | null = null;

  constructor(readonly authDir: string, options: AuthStoreOptions = {}) {
    mkdirSync(authDir, { recursive: true, mode: DIR_MODE });
    // mkdir's mode does not touch an existing directory; tighten one made by hand.
    chmodSync(authDir, DIR_MODE);
    const now = options.now ?? Date.now;
    this.users = options.backend?.users ?? new UserStore(authDir, now);
    this.tokens = options.backend?.tokens ?? new ApiTokenStore(authDir, now);
    this.secret = loadOrCreateAuthSecret(authDir, options.secret);
    this.limiter = options.limiter ?? new SignInRateLimiter(undefined, now);
  }

  /**
   * Start-up: create the admin from the environment if asked, else when nobody exists yet issue
   * the one-time setup code. Returns what to print in the server log.
   */
  async bootstrap(env: { adminEmail?: string; adminPassword?: string }): Promise<string[]> {
    const log: string[] = [];
    if (env.adminEmail || env.adminPassword) {
      if (!env.adminEmail || !env.adminPassword) {
        log.push('OPENPROGRAM_ADMIN_EMAIL and OPENPROGRAM_ADMIN_PASSWORD must be set together; ignored.');
      } else if (this.users.hasAdmin()) {
        log.push('warning: OPENPROGRAM_ADMIN_EMAIL/OPENPROGRAM_ADMIN_PASSWORD ignored: an admin already exists.');
      } else {
        try {
          const admin = await this.users.create({ email: env.adminEmail, password: env.adminPassword, admin: true });
          log.push(`Created the admin account ${admin.email} from OPENPROGRAM_ADMIN_EMAIL.`);
        } catch (error) {
          if (!(error instanceof AuthError)) throw error;
          log.push(`warning: OPENPROGRAM_ADMIN_EMAIL/OPENPROGRAM_ADMIN_PASSWORD not used: ${error.message}.`);
        }
      }
    }
    if (!this.users.hasUsers()) {
      this.setupCode = newSetupCode();
      log.push(`No user exists yet. Open /signin and create the admin account with the setup code: ${this.setupCode}`);
    }
    return log;
  }

  get needsSetup(): boolean {
    return !this.users.hasUsers();
  }

  /** First run only: the setup code from the log turns the first account into the admin. */
  async createFirstAdmin(input: { code: string; email: string; password: string; ip: string | null }): Promise<PublicUser> {
    if (this.users.hasUsers()) throw new AuthError('CONFLICT', 'the admin account already exists; sign in');
    const key = 'setup-code';
    if (!(await this.limiter.check(key, input.ip)).allowed) {
      throw new AuthError('TOO_MANY_REQUESTS', 'too many wrong setup codes; try again later');
    }
    if (this.setupCode === null || !setupCodeMatches(this.setupCode, input.code)) {
      await this.limiter.recordFailure(key, input.ip);
      throw new AuthError('FORBIDDEN', 'the setup code is wrong; it is printed in the server log');
    }
    const admin = await this.users.create({ email: input.email, password: input.password, admin: true });
    this.setupCode = null; // one-time
    return admin;
  }

  /** Self sign-up, only while the admin has opened it. */
  async signUp(input: { email: string; password: string }): Promise<PublicUser> {
    if (!this.users.signupOpen) throw new AuthError('FORBIDDEN', 'sign-up is closed; ask the admin for an account');
    return this.users.create({ email: input.email, password: input.password, admin: false });
  }

  /** The rate limit is checked before any hashing; a refused attempt costs no CPU. */
  async signIn(email: string, password: string, ip: string | null): Promise<SignInResult> {
    const decision = await this.limiter.check(email, ip);
    if (!decision.allowed) return { ok: false, reason: 'rate_limited', retryAfterMs: decision.retryAfterMs };
    const user = await this.users.verifyCredentials(email, password);
    if (!user) {
      await this.limiter.recordFailure(email, ip);
      return { ok: false, reason: 'invalid' };
    }
    await this.limiter.recordSuccess(email, ip);
    return { ok: true, user };
  }

  /**
   * A user's own password change. A wrong current password is a failed sign-in: it counts toward
   * the same limits, checked before any hashing. Every sign-in of the user ends (the session
   * version); the caller re-issues the current one.
   */
  async changePassword(userId: string, current: string, next: string, ip: string | null): Promise<PublicUser> {
    const user = this.users.get(userId);
    if (!user) throw new AuthError('NOT_FOUND', 'no such user');
    const decision = await this.limiter.check(user.email, ip);
    if (!decision.allowed) {
      throw new AuthError('TOO_MANY_REQUESTS', `too many wrong passwords; try again in ${Math.max(1, Math.ceil(decision.retryAfterMs / 1000))} s`);
    }
    try {
      return await this.users.changePassword(userId, current, next);
    } catch (error) {
      if (error instanceof AuthError && /current password is wrong/.test(error.message)) await this.limiter.recordFailure(user.email, ip);
      throw error;
    }
  }

  /** A sign-in cookie is valid while its user exists, is enabled and has the same session version. */
  sessionUser(userId: string, sessionVersion: number): UserRecord | null {
    const user = this.users.get(userId);
    return user && !user.disabled && user.sessionVersion === sessionVersion ? user : null;
  }

  /** The enabled owner of a valid personal API token, or null. */
  authenticateToken(token: string): { user: UserRecord; tokenId: string; access: TokenAccess } | null {
    const found = this.tokens.authenticate(token);
    const user = found ? this.users.get(found.userId) : undefined;
    const access = found ? this.tokens.accessOf(found.tokenId) : null;
    return found && user && !user.disabled && access ? { user, tokenId: found.tokenId, access } : null;
  }

  /**
   * A fresh CLI token at every start, written to `<authDir>/cli-token` (0600): whoever can read
   * that file already owns the data directory, so it carries admin rights.
   */
  writeCliToken(): string {
    this.cliToken = newSecretToken(CLI_TOKEN_PREFIX);
    atomicWriteFileSync(join(this.authDir, 'cli-token'), `${this.cliToken}\n`);
    return this.cliToken;
  }

  isCliToken(token: string): boolean {
    return this.cliToken !== null && token.startsWith(CLI_TOKEN_PREFIX) && safeEqual(this.cliToken, token);
  }

  flushSync(): void {
    this.tokens.flushSync();
  }
}
