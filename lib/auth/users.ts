import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../fs/atomic-write.js';
import { AuthError } from './errors.js';
import { assertPasswordPolicy, burnPasswordCheck, hashPassword, verifyPassword } from './password.js';
import { sameIdentity, signInMethodOf, type SignInMethod, type UserIdentity } from './user-identity.js';

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string;
  admin: boolean;
  disabled: boolean;
  /** Carried in every sign-in cookie; bumping it ends all of the user's sign-ins at once. */
  sessionVersion: number;
  createdAt: number;
  updatedAt: number;
  /** the user's own settings; absent: every default */
  prefs?: Partial<UserPrefs>;
  /** how they sign in when not with a password (lib/auth/user-identity.ts); absent: password */
  identity?: UserIdentity;
}

/** Per-user settings (Settings page). */
export interface UserPrefs {
  /** take secrets out of every message on the way in (DESIGN §10); on unless turned off */
  redactSecrets: boolean;
  /**
   * send the prompts of agent sessions (recorded or imported: not the web chat) to the title model
   * for a title; off unless turned on, as the agent's prompts were never meant for that model
   */
  titleAgentSessions: boolean;
}

export const DEFAULT_PREFS: UserPrefs = { redactSecrets: true, titleAgentSessions: false };

/** What leaves lib/auth: never the hash. */
export interface PublicUser {
  id: string;
  email: string;
  admin: boolean;
  disabled: boolean;
  sessionVersion: number;
  createdAt: number;
  signIn: SignInMethod;
}

export interface UsersFile {
  version: 1;
  signupOpen: boolean;
  users: UserRecord[];
}

/** What changed, for a backend that writes rows (Postgres) rather than the whole document. */
export type UserChange =
  | { kind: 'insert'; user: UserRecord }
  /** `access`: the change ended the user's sign-ins (disabled, password reset or changed) */
  | { kind: 'update'; user: UserRecord; access: 'disabled' | 'password' | null }
  | { kind: 'signup'; open: boolean };

/**
 * Where users are kept. The store validates and keeps the in-memory copy the sync reads use; a
 * backend writes a change durably before the store applies it. `next` is the whole document
 * with the change applied (the file backend writes it; a row backend writes `change`).
 */
export interface UserBackend {
  write(change: UserChange, next: UsersFile): Promise<void>;
}

/** `<authDir>/users.json`, rewritten atomically on every change. */
export class UsersFileBackend implements UserBackend {
  constructor(readonly path: string) {}

  load(): UsersFile {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, signupOpen: false, users: [] };
      throw error;
    }
    // A corrupt users file must stop the server rather than silently start with no users
    // (which would offer the first-run admin setup to anyone holding the log).
    const parsed = JSON.parse(text) as Partial<UsersFile>;
    if (!parsed || !Array.isArray(parsed.users)) throw new Error(`${this.path} is not a users file`);
    return { version: 1, signupOpen: parsed.signupOpen === true, users: parsed.users };
  }

  async write(_change: UserChange, next: UsersFile): Promise<void> {
    atomicWriteFileSync(this.path, `${JSON.stringify(next, null, 2)}\n`);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const EMAIL_MAX_LENGTH = 254;
// User ids name directories (data/users/<id>): hex only, so they are always safe path segments.
export const USER_ID_PATTERN = /^[0-9a-f]{16}$/;
const USER_ID = USER_ID_PATTERN;

export function normaliseEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (trimmed.length > EMAIL_MAX_LENGTH || !EMAIL.test(trimmed)) {
    throw new AuthError('BAD_REQUEST', 'email must look like name@example.org');
  }
  return trimmed;
}

export function isUserId(value: unknown): value is string {
  return typeof value === 'string' && USER_ID.test(value);
}

function toPublicUser(user: UserRecord): PublicUser {
  const { id, email, admin, disabled, sessionVersion, createdAt } = user;
  return { id, email, admin, disabled, sessionVersion, createdAt, signIn: signInMethodOf(user.identity) };
}

/**
 * Users and the sign-up setting: by default in `<authDir>/users.json`, in cluster mode in
 * Postgres (lib/cluster). Reads are synchronous from the in-memory copy; every change is written
 * through the backend before the call returns and before the copy shows it.
 */
export class UserStore {
  private readonly backend: UserBackend;
  private state: UsersFile;
  private readonly byId = new Map<string, UserRecord>();
  private readonly byEmail = new Map<string, UserRecord>();
  private readonly accessListeners = new Set<(userId: string) => void>();

  constructor(
    source: string | { backend: UserBackend; state: UsersFile },
    private readonly now: () => number = Date.now,
  ) {
    if (typeof source === 'string') {
      const file = new UsersFileBackend(join(source, 'users.json'));
      this.backend = file;
      this.state = file.load();
    } else {
      this.backend = source.backend;
      this.state = source.state;
    }
    for (const user of this.state.users) this.index(user);
  }

  /**
   * A replica's refresh (cluster mode): another instance changed this user. `access` says the
   * change ended its sign-ins, so the listeners close its streams at once.
   */
  replaceFromBackend(user: UserRecord | null, id: string, access: boolean): void {
    const existing = this.byId.get(id);
    if (existing) {
      this.byEmail.delete(existing.email);
      this.byId.delete(id);
      this.state.users = this.state.users.filter((u) => u.id !== id);
    }
    if (user) {
      this.state.users.push(user);
      this.index(user);
    }
    if (access) for (const listener of this.accessListeners) listener(id);
  }

  /** A replica's refresh of the sign-up setting. */
  replaceSignupOpen(open: boolean): void {
    this.state.signupOpen = open;
  }

  /** Every user, for a replica's full reload. */
  replaceAll(state: UsersFile): void {
    const before = new Map(this.byId);
    this.state = state;
    this.byId.clear();
    this.byEmail.clear();
    for (const user of state.users) this.index(user);
    for (const [id, old] of before) {
      const now = this.byId.get(id);
      if (!now || now.sessionVersion !== old.sessionVersion || now.disabled !== old.disabled) {
        for (const listener of this.accessListeners) listener(id);
      }
    }
  }

  /**
   * Called after a user's sign-ins end (disabled, password reset or changed): the event hub
   * closes their open streams at once instead of at the next heartbeat.
   */
  onAccessChange(listener: (userId: string) => void): () => void {
    this.accessListeners.add(listener);
    return () => this.accessListeners.delete(listener);
  }

  get signupOpen(): boolean {
    return this.state.signupOpen;
  }

  async setSignupOpen(open: boolean): Promise<void> {
    await this.backend.write({ kind: 'signup', open }, { ...this.state, signupOpen: open });
    this.state.signupOpen = open;
  }

  hasUsers(): boolean {
    return this.state.users.length > 0;
  }

  hasAdmin(): boolean {
    return this.state.users.some((user) => user.admin);
  }

  /** The account the CLI acts as when it names nobody. */
  firstEnabledAdmin(): UserRecord | undefined {
    return this.state.users.find((user) => user.admin && !user.disabled);
  }

  list(): PublicUser[] {
    return this.state.users.map(toPublicUser);
  }

  get(id: string): UserRecord | undefined {
    return this.byId.get(id);
  }

  findByEmail(email: string): UserRecord | undefined {
    try {
      return this.byEmail.get(normaliseEmail(email));
    } catch {
      return undefined;
    }
  }

  async create(input: { email: string; password: string; admin?: boolean }): Promise<PublicUser> {
    const email = normaliseEmail(input.email);
    assertPasswordPolicy(input.password);
    this.assertEmailFree(email);
    const passwordHash = await hashPassword(input.password);
    return this.insert({ email, passwordHash, admin: input.admin ?? false });
  }

  /** A user who signs in through an identity provider; `passwordHash` is one nobody knows. */
  async createWithIdentity(input: { email: string; admin: boolean; identity: UserIdentity; passwordHash: string }): Promise<UserRecord> {
    const email = normaliseEmail(input.email);
    this.assertEmailFree(email);
    if (this.findByIdentity(input.identity)) throw new AuthError('CONFLICT', 'a user with this identity already exists');
    const created = await this.insert({ email, passwordHash: input.passwordHash, admin: input.admin, identity: input.identity });
    return this.byId.get(created.id)!;
  }

  findByIdentity(identity: UserIdentity): UserRecord | undefined {
    return this.state.users.find((user) => user.identity !== undefined && sameIdentity(user.identity, identity));
  }

  /** The role an identity provider's groups claim gives; the sign-ins go on (the role is read on every request). */
  async setAdmin(id: string, admin: boolean): Promise<PublicUser> {
    return this.update(this.require(id), (u) => {
      u.admin = admin;
    });
  }

  private async insert(fields: Pick<UserRecord, 'email' | 'passwordHash' | 'admin' | 'identity'>): Promise<PublicUser> {
    // Checked again: another create may have finished while this one was hashing.
    this.assertEmailFree(fields.email);
    const at = this.now();
    const user: UserRecord = { id: this.newId(), ...fields, disabled: false, sessionVersion: 1, createdAt: at, updatedAt: at };
    if (user.identity === undefined) delete user.identity;
    await this.backend.write({ kind: 'insert', user }, { ...this.state, users: [...this.state.users, user] });
    // The backend decided (Postgres's unique email); a replica may already hold the row from
    // the backend's own announcement.
    if (this.byId.has(user.id)) this.replaceFromBackend(user, user.id, false);
    else {
      this.state.users.push(user);
      this.index(user);
    }
    return toPublicUser(user);
  }

  /** The user when the password matches and the account is enabled; null otherwise, in similar time. */
  async verifyCredentials(email: string, password: string): Promise<UserRecord | null> {
    const user = this.findByEmail(email);
    if (!user) return burnPasswordCheck(password).then(() => null);
    const ok = await verifyPassword(password, user.passwordHash);
    return ok && !user.disabled ? user : null;
  }

  async setDisabled(id: string, disabled: boolean): Promise<PublicUser> {
    const user = this.require(id);
    if (disabled && user.admin && !this.state.users.some((u) => u.admin && !u.disabled && u.id !== id)) {
      throw new AuthError('CONFLICT', 'the last enabled admin cannot be disabled');
    }
    return this.update(user, (u) => {
      u.disabled = disabled;
      // Ends every open sign-in of a disabled user at once.
      if (disabled) u.sessionVersion += 1;
    });
  }

  prefsOf(id: string): UserPrefs {
    const stored = this.require(id).prefs ?? {};
    return {
      redactSecrets: typeof stored.redactSecrets === 'boolean' ? stored.redactSecrets : DEFAULT_PREFS.redactSecrets,
      titleAgentSessions: typeof stored.titleAgentSessions === 'boolean' ? stored.titleAgentSessions : DEFAULT_PREFS.titleAgentSessions,
    };
  }

  async setPrefs(id: string, change: Partial<UserPrefs>): Promise<UserPrefs> {
    const user = this.require(id);
    for (const key of ['redactSecrets', 'titleAgentSessions'] as const) {
      if (change[key] !== undefined && typeof change[key] !== 'boolean') throw new AuthError('BAD_REQUEST', `${key} must be true or false`);
    }
    await this.update(user, (u) => {
      u.prefs = { ...(u.prefs ?? {}), ...change };
    });
    return this.prefsOf(id);
  }

  async resetPassword(id: string, password: string): Promise<PublicUser> {
    this.require(id);
    assertPasswordPolicy(password);
    const passwordHash = await hashPassword(password);
    return this.update(this.require(id), (u) => {
      u.passwordHash = passwordHash;
      u.sessionVersion += 1;
    });
  }

  async changePassword(id: string, current: string, next: string): Promise<PublicUser> {
    const user = this.require(id);
    assertPasswordPolicy(next);
    if (!(await verifyPassword(current, user.passwordHash))) {
      throw new AuthError('BAD_REQUEST', 'the current password is wrong');
    }
    const passwordHash = await hashPassword(next);
    // Ends every sign-in of the user; the caller re-issues the current one (user.changePassword).
    return this.update(this.require(id), (u) => {
      u.passwordHash = passwordHash;
      u.sessionVersion += 1;
    });
  }

  private async update(user: UserRecord, change: (user: UserRecord) => void): Promise<PublicUser> {
    const next: UserRecord = { ...user, prefs: user.prefs ? { ...user.prefs } : undefined };
    if (next.prefs === undefined) delete next.prefs;
    change(next);
    next.updatedAt = this.now();
    const access = next.sessionVersion === user.sessionVersion ? null : next.disabled && !user.disabled ? 'disabled' : 'password';
    await this.backend.write(
      { kind: 'update', user: next, access },
      { ...this.state, users: this.state.users.map((u) => (u.id === user.id ? next : u)) },
    );
    // The same object stays in the maps: a sign-in holding it sees the change.
    Object.assign(user, next);
    if (access) {
      for (const listener of this.accessListeners) listener(user.id);
    }
    return toPublicUser(user);
  }

  private require(id: string): UserRecord {
    const user = isUserId(id) ? this.byId.get(id) : undefined;
    if (!user) throw new AuthError('NOT_FOUND', 'no such user');
    return user;
  }

  private assertEmailFree(email: string): void {
    if (this.byEmail.has(email)) throw new AuthError('CONFLICT', 'a user with this email already exists');
  }

  private newId(): string {
    for (;;) {
      const id = randomBytes(8).toString('hex');
      if (!this.byId.has(id)) return id;
    }
  }

  private index(user: UserRecord): void {
    this.byId.set(user.id, user);
    this.byEmail.set(user.email, user);
  }
}
