import { mkdir } from 'node:fs/promises';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { ConflictError, ForbiddenPathError, InvalidInputError, NotFoundError, PreconditionError } from '../errors.js';
import { DIR_MODE } from '../../fs/atomic-write.js';
import { DEFAULT_PROJECT_ID, assertProjectId, assertSessionId, isProjectId } from '../ids.js';
import { isInsideAny, realpathOrNull, resolveDirectoryInsideRoots, resolveInsideRoots } from './allowed-roots.js';
import { ensureProjectRepo, unignoredDependencyFolders } from './init-project-repo.js';
import { isRecord, ProjectsFile, sessionIdsOf, type RawEntry, type Registry } from './projects-file.js';
import { assertProjectName, newProjectId } from './project-names.js';
import { nowSeconds, secondsToMs } from '../time.js';
import { assertRepoSafe, locateGitDirs } from '../git/repo-safety.js';
import { isDirectory } from '../../fs/real-path.js';
import type { ProjectDetail, ProjectInspection, ProjectStoreOptions, ProjectSummary, WorkdirState } from './project-types.js';

/** The projects the session store serves, on the `projects.json` document (projects-file.ts). */
const DEFAULT_PROJECT_NAME = 'Home';

export type { ProjectDetail, ProjectInspection, ProjectStoreOptions, ProjectSummary, WorkdirState } from './project-types.js';

export class ProjectStore {
  readonly stateDir: string;
  readonly workspaceRoot: string;
  private roots: readonly string[];
  readonly registryPath: string;
  private readonly file: ProjectsFile;

  constructor(options: ProjectStoreOptions) {
    this.stateDir = resolve(options.stateDir);
    this.workspaceRoot = resolve(options.workspaceRoot);
    this.roots = (options.allowedRoots ?? [this.workspaceRoot]).map((r) => resolve(r));
    if (this.roots.length === 0) throw new InvalidInputError('at least one allowed root is required');
    this.registryPath = join(this.stateDir, 'projects', 'projects.json');
    this.file = new ProjectsFile(this.registryPath);
  }

  /** Where project folders may live: the workspace root first, then the roots an admin added. */
  get allowedRoots(): readonly string[] {
    return this.roots;
  }

  /** An admin changed the roots: checked from the next call on (every check resolves at the moment of use). */
  setAllowedRoots(roots: readonly string[]): void {
    if (roots.length === 0) throw new InvalidInputError('at least one allowed root is required');
    this.roots = roots.map((r) => resolve(r));
  }

  /**
   * What adding `path` as a project would do, without doing it: its real path, whether it exists
   * and is a repository, the project it already is, and the dependency folders that would stop
   * a `git init`. Outside the roots is the same FORBIDDEN as resolve.
   */
  async inspect(path: string): Promise<ProjectInspection> {
    const real = await resolveInsideRoots(path, this.allowedRoots, { base: this.workspaceRoot, allowMissing: true });
    const exists = (await realpathOrNull(real)) !== null;
    if (exists && !(await isDirectory(real))) throw new PreconditionError(`not a directory: ${real}`);
    const isHome = exists && real === (await realpathOrNull(this.workspaceRoot));
    const isRepository = exists && (await locateGitDirs(real)) !== null;
    this.file.reloadIfChanged();
    const projectId = isHome ? DEFAULT_PROJECT_ID : exists ? await this.findByPath(real) : null;
    return {
      path: real,
      exists,
      isRepository,
      projectId,
      initBlockers: exists && !isRepository && !isHome ? await unignoredDependencyFolders(real) : [],
    };
  }

  /** Construct and make sure the workspace root (the default project's folder) exists. */
  static async open(options: ProjectStoreOptions): Promise<ProjectStore> {
    const store = new ProjectStore(options);
    await mkdir(store.workspaceRoot, { recursive: true, mode: DIR_MODE });
    return store;
  }

  // ── reading ────────────────────────────────────────────────────────────

  /** Every project, the default ("Home") first, then by name. */
  async list(): Promise<ProjectSummary[]> {
    this.file.reloadIfChanged();
    const out: ProjectSummary[] = [await this.summaryOf(DEFAULT_PROJECT_ID)];
    const others: ProjectSummary[] = [];
    for (const id of Object.keys(this.registry)) {
      if (id === DEFAULT_PROJECT_ID || !this.usableEntry(id)) continue;
      others.push(await this.summaryOf(id));
    }
    others.sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id));
    return out.concat(others);
  }

  /** One project with its sessions; NotFoundError for an unknown id. */
  async get(id: string): Promise<ProjectDetail> {
    assertProjectId(id);
    this.file.reloadIfChanged();
    if (id !== DEFAULT_PROJECT_ID && !this.usableEntry(id)) throw new NotFoundError(`unknown project: ${id}`);
    const summary = await this.summaryOf(id);
    const entry = this.entry(id);
    const createdAt = typeof entry?.created_at === 'number' ? secondsToMs(entry.created_at) : 0;
    return {
      ...summary,
      sessionIds: entry ? sessionIdsOf(entry) : [],
      status: typeof entry?.status === 'string' ? entry.status : 'active',
      createdAt,
    };
  }

  has(id: string): boolean {
    return id === DEFAULT_PROJECT_ID || (isProjectId(id) && this.usableEntry(id));
  }

  /** The display name; an unregistered id shows as itself (sessions keep their project_id). */
  nameOf(id: string): string {
    if (id === DEFAULT_PROJECT_ID) return this.defaultName();
    const entry = this.entry(id);
    return entry && typeof entry.name === 'string' && entry.name ? entry.name : id;
  }

  /** The project whose reverse index holds this session, or null. */
  projectOfSession(sessionId: string): string | null {
    for (const [id, entry] of Object.entries(this.registry)) {
      if (isRecord(entry) && Array.isArray(entry.session_ids) && entry.session_ids.includes(sessionId)) return id;
    }
    return null;
  }

  /**
   * Where a turn of this project runs. A folder that moved reports `missing` (with the path it
   * had) and is never replaced by the default project's folder.
   */
  async workdirState(id: string): Promise<WorkdirState> {
    assertProjectId(id);
    this.file.reloadIfChanged();
    if (id === DEFAULT_PROJECT_ID) {
      const real = await realpathOrNull(this.workspaceRoot);
      return real && (await isDirectory(real)) ? { state: 'ok', path: real } : { state: 'missing', path: this.workspaceRoot };
    }
    const entry = this.usableEntry(id) ? this.entry(id) : undefined;
    if (!entry) throw new NotFoundError(`unknown project: ${id}`);
    const path = String(entry.path);
    const real = await realpathOrNull(path);
    if (!real || !(await isDirectory(real))) return { state: 'missing', path };
    if (!(await isInsideAny(real, this.allowedRoots))) {
      throw new ForbiddenPathError(`the folder of project ${id} (${path}) now resolves to ${real}, outside the allowed roots (allowed: ${this.allowedRoots.join(', ')})`);
    }
    return { state: 'ok', path: real };
  }

  /** An additional working directory of a session: inside the allowed roots, an existing directory. Returns its real path. */
  async checkWorkdir(path: string): Promise<string> {
    return resolveDirectoryInsideRoots(path, this.allowedRoots, { base: this.workspaceRoot });
  }

  /** checkWorkdir for a whole list (deduplicated, in order, at most 32). */
  async checkWorkdirs(paths: readonly string[]): Promise<string[]> {
    if (!Array.isArray(paths)) throw new InvalidInputError('workdirs must be a list of paths');
    if (paths.length > 32) throw new InvalidInputError('at most 32 working directories');
    const out: string[] = [];
    for (const path of paths) {
      const real = await this.checkWorkdir(path);
      if (!out.includes(real)) out.push(real);
    }
    return out;
  }

  // ── writing ────────────────────────────────────────────────────────────

  /**
   * The project of a folder: the same real path always gives the same id. A folder without a
   * repository is initialised (see ensureProjectRepo); a missing folder inside the roots is
   * created. The workspace root itself is the default project.
   */
  async resolve(path: string, name?: string): Promise<ProjectDetail & { created: boolean }> {
    const displayName = name === undefined ? undefined : assertProjectName(name);
    let real = await resolveInsideRoots(path, this.allowedRoots, { base: this.workspaceRoot, allowMissing: true });
    if (!(await realpathOrNull(real))) {
      await mkdir(real, { recursive: true, mode: DIR_MODE });
      // Re-check what was created, in case a component was swapped for a link meanwhile.
      real = await resolveDirectoryInsideRoots(real, this.allowedRoots);
    }
    if (!(await isDirectory(real))) throw new PreconditionError(`not a directory: ${real}`);
    if (real === (await realpathOrNull(this.workspaceRoot))) return { ...(await this.get(DEFAULT_PROJECT_ID)), created: false };

    await ensureProjectRepo(real, { allowedRoots: this.allowedRoots });

    return this.file.mutate(async () => {
      const existing = await this.findByPath(real);
      if (existing) return { id: existing, created: false };
      const id = newProjectId(displayName ?? basename(real), (id) => Object.hasOwn(this.registry, id));
      this.registry[id] = {
        id,
        name: displayName ?? (basename(real) || id),
        path: real,
        is_default: false,
        session_ids: [],
        status: 'active',
        created_at: nowSeconds(),
        auto_commit: true,
      };
      return { id, created: true };
    }).then(async ({ id, created }) => ({ ...(await this.get(id)), created }));
  }

  /**
   * Register a project another state directory already had, under its own id (its sessions are
   * bound to that id): its folder must be inside the roots, and may be missing (to be repaired by
   * relocation, like any moved folder). The same id at the same folder is accepted again.
   */
  async adopt(id: string, name: string, path: string): Promise<ProjectDetail> {
    assertProjectId(id);
    if (id === DEFAULT_PROJECT_ID) throw new InvalidInputError('the default project is never adopted');
    if (typeof path !== 'string' || !isAbsolute(path)) throw new InvalidInputError(`project ${id}: its folder must be an absolute path`);
    const real = await resolveInsideRoots(path, this.allowedRoots, { base: this.workspaceRoot, allowMissing: true });
    if (real === (await realpathOrNull(this.workspaceRoot))) throw new ConflictError(`project ${id}: ${real} is the workspace root, the default project (Home)`);
    const displayName = typeof name === 'string' && name.trim() !== '' ? assertProjectName(name.trim()) : basename(real) || id;
    await this.file.mutate(async () => {
      const owner = await this.findByPath(real);
      if (owner && owner !== id) throw new ConflictError(`project ${id}: ${real} is already the folder of project ${this.nameOf(owner)} (${owner})`);
      const entry = this.entry(id);
      if (entry) {
        if (this.usableEntry(id) && ((await realpathOrNull(String(entry.path))) ?? String(entry.path)) === real) return;
        throw new ConflictError(`project ${id} already exists here with another folder (${String(entry.path)})`);
      }
      this.registry[id] = { id, name: displayName, path: real, is_default: false, session_ids: [], status: 'active', created_at: nowSeconds(), auto_commit: true };
    });
    return this.get(id);
  }

  /** Record that a session belongs to this project (and to no other: a session has one project). */
  async addSession(id: string, sessionId: string): Promise<void> {
    assertProjectId(id);
    assertSessionId(sessionId);
    await this.file.mutate(async () => {
      if (id === DEFAULT_PROJECT_ID) this.ensureDefaultEntry();
      const entry = id === DEFAULT_PROJECT_ID || this.usableEntry(id) ? this.entry(id) : undefined;
      if (!entry) throw new NotFoundError(`unknown project: ${id}`);
      for (const [otherId, other] of Object.entries(this.registry)) {
        if (otherId !== id && isRecord(other) && Array.isArray(other.session_ids) && other.session_ids.includes(sessionId)) {
          other.session_ids = other.session_ids.filter((s) => s !== sessionId);
        }
      }
      const ids = Array.isArray(entry.session_ids) ? entry.session_ids : [];
      if (!ids.includes(sessionId)) entry.session_ids = [...ids, sessionId];
    });
  }

  /** Drop a session from a project's reverse index; false when it was not there. */
  async removeSession(id: string, sessionId: string): Promise<boolean> {
    assertProjectId(id);
    assertSessionId(sessionId);
    return this.file.mutate(async () => {
      const entry = this.entry(id);
      if (!entry || !Array.isArray(entry.session_ids) || !entry.session_ids.includes(sessionId)) return false;
      entry.session_ids = entry.session_ids.filter((s) => s !== sessionId);
      return true;
    });
  }

  /** Drop a deleted session from every project. */
  async forgetSession(sessionId: string): Promise<void> {
    assertSessionId(sessionId);
    const holder = this.projectOfSession(sessionId);
    if (holder && isProjectId(holder)) await this.removeSession(holder, sessionId);
  }

  /**
   * Repair a project whose folder moved: point it at `newPath`, keeping its id (sessions, the
   * frozen binding and settings hang on the id). Only a repair: refused while the old folder is
   * still there, for the default project, and for a folder that already belongs to a project.
   */
  async relocate(id: string, newPath: string): Promise<{ oldPath: string; path: string }> {
    assertProjectId(id);
    if (id === DEFAULT_PROJECT_ID) throw new InvalidInputError('the default project (Home) cannot be relocated: it is always the workspace folder');
    const real = await resolveDirectoryInsideRoots(newPath, this.allowedRoots, { base: this.workspaceRoot });
    if (real === (await realpathOrNull(this.workspaceRoot))) {
      throw new ConflictError('that folder is the workspace root, the default project (Home)');
    }
    if (await locateGitDirs(real)) await assertRepoSafe(real, { allowedRoots: this.allowedRoots });
    return this.file.mutate(async () => {
      const entry = this.usableEntry(id) ? this.entry(id) : undefined;
      if (!entry) throw new NotFoundError(`unknown project: ${id}`);
      const oldPath = String(entry.path);
      const oldReal = await realpathOrNull(oldPath);
      if (oldReal === real) return { oldPath, path: real };
      const owner = await this.findByPath(real);
      if (owner && owner !== id) throw new ConflictError(`${real} is already the folder of project ${this.nameOf(owner)} (${owner})`);
      if (oldReal && (await isDirectory(oldReal)) && (await isInsideAny(oldReal, this.allowedRoots))) {
        throw new PreconditionError(`the folder of project ${this.nameOf(id)} still exists at ${oldPath}; relocation only repairs a folder that was moved or renamed`);
      }
      entry.path = real;
      return { oldPath, path: real };
    });
  }

  /** Remove a project from the registry only: its folder and git history stay untouched. */
  async unregister(id: string): Promise<{ id: string; name: string; path: string; sessionIds: string[] }> {
    assertProjectId(id);
    if (id === DEFAULT_PROJECT_ID) throw new InvalidInputError('the default project (Home) cannot be unregistered');
    return this.file.mutate(async () => {
      const entry = this.usableEntry(id) ? this.entry(id) : undefined;
      if (!entry) throw new NotFoundError(`unknown project: ${id}`);
      delete this.registry[id];
      return { id, name: typeof entry.name === 'string' ? entry.name : id, path: String(entry.path), sessionIds: sessionIdsOf(entry) };
    });
  }

  async setAutoCommit(id: string, on: boolean): Promise<ProjectDetail> {
    assertProjectId(id);
    if (typeof on !== 'boolean') throw new InvalidInputError('on must be true or false');
    if (id === DEFAULT_PROJECT_ID) throw new InvalidInputError('the default project (Home) has no repository to commit to');
    await this.file.mutate(async () => {
      const entry = this.usableEntry(id) ? this.entry(id) : undefined;
      if (!entry) throw new NotFoundError(`unknown project: ${id}`);
      entry.auto_commit = on;
    });
    return this.get(id);
  }

  // ── internals ──────────────────────────────────────────────────────────

  /** The document as last read; mutate() replaces it on a refused change. */
  private get registry(): Registry {
    return this.file.registry;
  }

  private entry(id: string): RawEntry | undefined {
    const value = Object.hasOwn(this.registry, id) ? this.registry[id] : undefined;
    return isRecord(value) ? value : undefined;
  }

  /** A non-default entry we can serve: valid id, an absolute path. Others are kept on disk untouched. */
  private usableEntry(id: string): boolean {
    if (!isProjectId(id) || id === DEFAULT_PROJECT_ID) return false;
    const entry = this.entry(id);
    return !!entry && entry.is_default !== true && typeof entry.path === 'string' && isAbsolute(entry.path);
  }

  private defaultName(): string {
    const entry = this.entry(DEFAULT_PROJECT_ID);
    // OpenProgram names it after the home folder; ours is "Home" unless a person renamed it.
    return entry?.custom_name === true && typeof entry.name === 'string' && entry.name ? entry.name : DEFAULT_PROJECT_NAME;
  }

  private async summaryOf(id: string): Promise<ProjectSummary> {
    if (id === DEFAULT_PROJECT_ID) {
      const entry = this.entry(id);
      return {
        id,
        name: this.defaultName(),
        path: this.workspaceRoot,
        isDefault: true,
        pathMissing: !(await isDirectory(this.workspaceRoot)),
        sessionCount: entry ? sessionIdsOf(entry).length : 0,
        autoCommit: false,
      };
    }
    const entry = this.entry(id) ?? {};
    const path = String(entry.path);
    return {
      id,
      name: this.nameOf(id),
      path,
      isDefault: false,
      pathMissing: !(await isDirectory(path)),
      sessionCount: sessionIdsOf(entry).length,
      autoCommit: entry.auto_commit !== false,
    };
  }

  private async findByPath(real: string): Promise<string | null> {
    for (const id of Object.keys(this.registry)) {
      if (!this.usableEntry(id)) continue;
      const path = String(this.entry(id)?.path);
      if (path === real || (await realpathOrNull(path)) === real) return id;
    }
    return null;
  }

  private ensureDefaultEntry(): void {
    if (this.entry(DEFAULT_PROJECT_ID)) {
      this.entry(DEFAULT_PROJECT_ID)!.path = this.workspaceRoot;
      return;
    }
    this.registry[DEFAULT_PROJECT_ID] = {
      id: DEFAULT_PROJECT_ID,
      name: DEFAULT_PROJECT_NAME,
      path: this.workspaceRoot,
      is_default: true,
      session_ids: [],
      status: 'active',
      created_at: nowSeconds(),
    };
  }
}
