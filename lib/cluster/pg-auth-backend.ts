import { randomBytes } from 'node:crypto';
import {
  AuthError,
  DEFAULT_SIGN_IN_RULES,
  type RateLimitDecision,
  type SignInLimits,
  type SignInRules,
  type TokenBackend,
  type TokenChange,
  type TokenRecord,
  type UserBackend,
  type UserChange,
  type UserRecord,
  type UsersFile,
  decideSignIn,
  isTokenScope,
  signInKeys,
} from '../auth/index.js';
import { notifyControl } from './control-channel.js';
import { inTransaction, type Pool } from './db.js';
import type { ShardOwner } from './shard-directory.js';

interface UserRow {
  id: string;
  email: string;
  password_hash: string;
  admin: boolean;
  disabled: boolean;
  session_version: number;
  created_at: string;
  updated_at: string;
  prefs: UserRecord['prefs'] | null;
  identity: UserRecord['identity'] | null;
}

function toUser(row: UserRow): UserRecord {
  const user: UserRecord = {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    admin: row.admin,
    disabled: row.disabled,
    sessionVersion: row.session_version,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  if (row.prefs) user.prefs = row.prefs;
  if (row.identity) user.identity = row.identity;
  return user;
}

interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  scopes: string[] | null;
  project_id: string | null;
}

function toToken(row: TokenRow): TokenRecord {
  return {
    ...(row.scopes === null ? {} : { scopes: row.scopes.filter(isTokenScope) }),
    projectId: row.project_id,
    id: row.id,
    userId: row.user_id,
    name: row.name,
    hash: row.hash,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  };
}

const USER_COLUMNS = 'id, email, password_hash, admin, disabled, session_version, created_at, updated_at, prefs, identity';
const TOKEN_COLUMNS = 'id, user_id, name, hash, created_at, last_used_at, expires_at, scopes, project_id';

export async function loadUsers(pool: Pool): Promise<UsersFile> {
  const [users, signup] = await Promise.all([
    pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM auth_user ORDER BY created_at, id`),
    pool.query<{ value: string }>("SELECT value FROM auth_setting WHERE key = 'signup_open'"),
  ]);
  return { version: 1, signupOpen: signup.rows[0]?.value === 'true', users: users.rows.map(toUser) };
}

export async function loadUser(pool: Pool, id: string): Promise<UserRecord | null> {
  const { rows } = await pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM auth_user WHERE id = $1`, [id]);
  return rows[0] ? toUser(rows[0]) : null;
}

/** The id of the user with this email (normalised as the user store does), or null. */
export async function findUserIdByEmail(pool: Pool, email: string): Promise<string | null> {
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM auth_user WHERE email = $1', [email.trim().toLowerCase()]);
  return rows[0]?.id ?? null;
}

export async function loadSignupOpen(pool: Pool): Promise<boolean> {
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM auth_setting WHERE key = 'signup_open'");
  return rows[0]?.value === 'true';
}

export async function loadTokens(pool: Pool, userId?: string): Promise<TokenRecord[]> {
  const { rows } = userId
    ? await pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM auth_token WHERE user_id = $1 ORDER BY created_at, id`, [userId])
    : await pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM auth_token ORDER BY created_at, id`);
  return rows.map(toToken);
}

/**
 * The cookie-signing secret every instance shares (a cookie made by one is read by all):
 * NEXTAUTH_SECRET when given, else generated once into Postgres by whichever instance starts first.
 */
export async function loadSharedSecret(pool: Pool, fromEnv: string | undefined): Promise<string> {
  if (fromEnv && fromEnv.trim() !== '') return fromEnv;
  await pool.query("INSERT INTO auth_setting (key, value) VALUES ('auth_secret', $1) ON CONFLICT (key) DO NOTHING", [randomBytes(48).toString('base64url')]);
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM auth_setting WHERE key = 'auth_secret'");
  return rows[0]!.value;
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

/**
 * Users in Postgres. A new user is inserted and placed (`place_user`) in one transaction, so no
 * user exists without an owner; every change sends its control message at commit.
 */
export class PgUserBackend implements UserBackend {
  constructor(
    private readonly pool: Pool,
    /** the new user's owner, for this instance's own replica */
    private readonly onPlaced: (userId: string, owner: ShardOwner) => void = () => undefined,
  ) {}

  async write(change: UserChange): Promise<void> {
    if (change.kind === 'signup') {
      await inTransaction(this.pool, async (client) => {
        await client.query(
          "INSERT INTO auth_setting (key, value) VALUES ('signup_open', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
          [String(change.open)],
        );
        await notifyControl(client, { kind: 'settings' });
      });
      return;
    }
    const u = change.user;
    if (change.kind === 'insert') {
      let owner: ShardOwner;
      try {
        owner = await inTransaction(this.pool, async (client) => {
          await client.query(
            `INSERT INTO auth_user (${USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            [u.id, u.email, u.passwordHash, u.admin, u.disabled, u.sessionVersion, u.createdAt, u.updatedAt, u.prefs ?? null, u.identity ?? null],
          );
          const { rows } = await client.query<{ shard: string; epoch: string; state: ShardOwner['state'] }>('SELECT shard, epoch, state FROM place_user($1)', [u.id]);
          if (!rows[0]) throw new AuthError('CONFLICT', 'no instance can take a new user: every instance is marked unhealthy or has weight 0');
          await notifyControl(client, { kind: 'user', userId: u.id });
          await notifyControl(client, { kind: 'placed', userId: u.id, epoch: Number(rows[0].epoch) });
          return { shard: rows[0].shard, epoch: Number(rows[0].epoch), state: rows[0].state };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AuthError('CONFLICT', 'a user with this email already exists');
        throw error;
      }
      this.onPlaced(u.id, owner);
      return;
    }
    await inTransaction(this.pool, async (client) => {
      const result = await client.query(
        'UPDATE auth_user SET password_hash = $2, admin = $3, disabled = $4, session_version = $5, updated_at = $6, prefs = $7 WHERE id = $1',
        [u.id, u.passwordHash, u.admin, u.disabled, u.sessionVersion, u.updatedAt, u.prefs ?? null],
      );
      if (result.rowCount === 0) throw new AuthError('NOT_FOUND', 'no such user');
      await notifyControl(client, change.access ? { kind: change.access, userId: u.id, sessionVersion: u.sessionVersion } : { kind: 'user', userId: u.id });
    });
  }
}

/** API tokens in Postgres (hashes only). Last-use times are written in batches, without a message. */
export class PgTokenBackend implements TokenBackend {
  constructor(private readonly pool: Pool) {}

  async write(change: TokenChange): Promise<void> {
    if (change.kind === 'used') {
      if (change.tokens.length === 0) return;
      await this.pool.query(
        `UPDATE auth_token t SET last_used_at = greatest(coalesce(t.last_used_at, 0), u.at)
         FROM unnest($1::text[], $2::bigint[]) AS u(id, at) WHERE t.id = u.id`,
        [change.tokens.map((t) => t.id), change.tokens.map((t) => t.lastUsedAt ?? 0)],
      );
      return;
    }
    const t = change.token;
    await inTransaction(this.pool, async (client) => {
      if (change.kind === 'insert') {
        await client.query(`INSERT INTO auth_token (${TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
          t.id,
          t.userId,
          t.name,
          t.hash,
          t.createdAt,
          t.lastUsedAt,
          t.expiresAt,
          t.scopes ?? null,
          t.projectId ?? null,
        ]);
      } else {
        await client.query('DELETE FROM auth_token WHERE id = $1 AND user_id = $2', [t.id, t.userId]);
      }
      await notifyControl(client, { kind: 'tokens', userId: t.userId });
    });
  }

  writeUsedSync(tokens: TokenRecord[]): void {
    // At shutdown there is no waiting on the network: the last few seconds of last-use times may be lost.
    const used = tokens.filter((t) => t.lastUsedAt !== null);
    this.write({ kind: 'used', tokens: used }).catch(() => undefined);
  }
}

/**
 * The sign-in limits, shared by every instance (a sign-in may reach any of them): the same rules
 * as the in-memory limiter (lib/auth/rate-limit.ts), the failures in `sign_in_failure`.
 */
export class PgSignInLimits implements SignInLimits {
  private readonly longestWindowMs: number;

  constructor(
    private readonly pool: Pool,
    private readonly rules: SignInRules = DEFAULT_SIGN_IN_RULES,
    private readonly now: () => number = Date.now,
  ) {
    this.longestWindowMs = Math.max(rules.ip.windowMs, rules.pair.windowMs, rules.account.windowMs);
  }

  async check(email: string, ip: string | null): Promise<RateLimitDecision> {
    const now = this.now();
    const { locks, account } = signInKeys(this.rules, email, ip);
    const keys = [...locks.map(([key]) => key), account[0]];
    const { rows } = await this.pool.query<{ key: string; times: string[] }>(
      'SELECT key, array_agg(at ORDER BY at) AS times FROM sign_in_failure WHERE key = ANY($1) AND at > $2 GROUP BY key',
      [keys, now - this.longestWindowMs],
    );
    const byKey = new Map(rows.map((row) => [row.key, row.times.map(Number)]));
    return decideSignIn(this.rules, email, ip, (key, rule) => (byKey.get(key) ?? []).filter((at) => at > now - rule.windowMs), now);
  }

  async recordFailure(email: string, ip: string | null): Promise<void> {
    const now = this.now();
    const { locks, account } = signInKeys(this.rules, email, ip);
    const keys = [...locks.map(([key]) => key), account[0]];
    await this.pool.query('INSERT INTO sign_in_failure (key, at) SELECT unnest($1::text[]), $2', [keys, now]);
    // Failures past every window count for nothing: pruned here, on the failure path only.
    await this.pool.query('DELETE FROM sign_in_failure WHERE at <= $1', [now - this.longestWindowMs]);
  }

  async recordSuccess(email: string, ip: string | null): Promise<void> {
    const { locks, account } = signInKeys(this.rules, email, ip);
    await this.pool.query('DELETE FROM sign_in_failure WHERE key = ANY($1)', [[locks[0]![0], account[0]]]);
  }
}
