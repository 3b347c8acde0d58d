import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LRUCache } from 'lru-cache';
import { DIR_MODE } from '../fs/atomic-write.js';
import { KeyedLock } from '../fs/keyed-lock.js';
import { StoreEvents } from './events.js';
import { Registry } from './registry/registry.js';
import { DEBOUNCE_MS, RegistryWriter } from './registry/index-file.js';
import { loadLocations } from './session/locations.js';
import { startUp, type StartupReport } from './session/startup.js';
import { RepackQueue } from './repo/repack.js';
import type { OpenSession, StoreContext } from './session/store-context.js';
import { ProjectStore } from './projects/index.js';
import { FileRecovery } from './recovery/file-recovery.js';
import { nowSeconds } from './time.js';
import type { TitleModel } from './titles/title-model.js';
import type { BranchInfo, BranchMessage, ListFilter, ListOptions, ListPage, Message, SessionDetail, SessionRow, StoredNode } from './types.js';
import { createSession, type CreateSessionInput } from './operations/create-session.js';
import { appendMessage, type AppendMessageInput } from './operations/append-message.js';
import { appendRecordNode } from './session/append-node.js';
import { countSessions, getSession, listSessions } from './operations/list-sessions.js';
import { setArchived, updateSession, type UpdateSessionInput } from './operations/update-session.js';
import { deleteSession } from './operations/delete-session.js';
import { getBranch, getNodes, listBranches, listNodes, type NodePage } from './operations/read-branch.js';
import { retry, setHead } from './operations/move-head.js';
import { beginTurn, finalizeTurn, type BeginTurnResult, type FinalizeTurnInput, type FinalizeTurnResult } from './operations/commit-turn.js';
import { listCommits, type CommitPage } from './session/commit-page.js';
import { getBranchWindow, getTipOf, type BranchWindowOptions } from './operations/branch-window.js';
import { sessionAt, type SessionAt } from './operations/session-at.js';
import { listTurns, type TimelinePage } from './operations/timeline-turns.js';
import { conversationDag, type ConversationDag } from './operations/conversation-dag.js';
import { diffCommit, type CommitDiff } from './operations/diff-commit.js';
import { nodeProvenance, nodesAfter, type Provenance } from './operations/provenance.js';
import { regenerateTitle } from './operations/regenerate-title.js';
import { setSessionProject } from './operations/bind-project.js';
import { relocateProject } from './operations/relocate-project.js';
import { setWorkdirs } from './operations/set-workdirs.js';
import { redoTurn, snapshotBeforeEdit, undoTurn, type UndoOutcome } from './operations/undo-turn.js';
import { resolveSessionAttachment, saveSessionAttachment } from './operations/session-attachments.js';
import type { ProjectCommit, ProjectDetail, ProjectSummary } from './projects/index.js';
import { listProjectCommits, projectCommitDiff } from './operations/project-commits.js';
import { setProjectAutoCommit } from './operations/set-project-auto-commit.js';
import { unregisterProject } from './operations/unregister-project.js';
import { sessionCommits } from './operations/session-commits.js';
import type { AttachmentUpload, ResolvedAttachment, SavedAttachment } from './repo/attachments.js';
import { writeContextFile } from './operations/context-file.js';
import { bundleSession } from './operations/bundle-session.js';
import type { GitStream } from './git/git-cli.js';

export interface SessionStoreOptions {
  /** an OpenProgram state directory (sessions/, projects/) */
  stateDir: string;
  /** the user's workspace: default project "Home" and the first allowed root */
  workspaceRoot?: string;
  /** roots outside the state directory where session repos and projects may live */
  allowedRoots?: string[];
  /** LRU cap of open sessions; default OPENPROGRAM_SESSION_CACHE_CAP or 256 */
  cacheCap?: number;
  titleModel?: TitleModel | null;
  /** shared across the stores of one process so repacks never pile up */
  repackQueue?: RepackQueue;
  debounceMs?: number;
  /** bytes of registry log after which it is compacted into index.json (default 4 MB) */
  compactBytes?: number;
  /** compaction timer when anything was logged since the last snapshot (default 60 s) */
  compactIntervalMs?: number;
  /** seconds; injectable so tests can age sessions */
  now?: () => number;
}

function cacheCapFromEnv(): number {
  const value = Number(process.env['OPENPROGRAM_SESSION_CACHE_CAP']);
  return Number.isInteger(value) && value > 0 ? value : 256;
}

/**
 * The Session-Git store of one state directory: one method per operation of the seeds, each
 * delegating to operations/. Usable from a plain Node script.
 */
export class SessionStore {
  readonly events: StoreEvents;
  readonly startup: StartupReport;
  private readonly ctx: StoreContext;
  private closed = false;

  private constructor(ctx: StoreContext, startup: StartupReport) {
    this.ctx = ctx;
    this.events = ctx.events;
    this.startup = startup;
  }

  static async open(options: SessionStoreOptions): Promise<SessionStore> {
    const stateDir = resolve(options.stateDir);
    const sessionsDir = join(stateDir, 'sessions');
    mkdirSync(sessionsDir, { recursive: true, mode: DIR_MODE });
    const workspaceRoot = resolve(options.workspaceRoot ?? join(stateDir, 'workspace'));
    const allowedRoots = [workspaceRoot, ...(options.allowedRoots ?? []).map((root) => resolve(root))];
    const trustedRoots = [stateDir, ...allowedRoots];
    const projects = await ProjectStore.open({ stateDir, workspaceRoot, allowedRoots });
    const registry = new Registry();
    const { trusted, untrusted } = loadLocations(sessionsDir, trustedRoots);
    const ctx: StoreContext = {
      stateDir,
      sessionsDir,
      trustedRoots,
      registry,
      writer: new RegistryWriter(sessionsDir, registry, {
        debounceMs: options.debounceMs ?? DEBOUNCE_MS,
        compactBytes: options.compactBytes,
        compactIntervalMs: options.compactIntervalMs,
      }),
      events: new StoreEvents(),
      locks: new KeyedLock(),
      cache: new LRUCache<string, OpenSession>({ max: options.cacheCap ?? cacheCapFromEnv() }),
      locations: trusted,
      untrustedLocations: untrusted,
      repack: options.repackQueue ?? new RepackQueue(),
      titleModel: options.titleModel ?? null,
      projects,
      recovery: new FileRecovery(stateDir),
      allowedRoots,
      turns: new Map(),
      now: options.now ?? nowSeconds,
      background: new Set(),
    };
    try {
      return new SessionStore(ctx, await startUp(ctx));
    } catch (error) {
      await ctx.writer.abandon();
      throw error;
    }
  }

  get stateDir(): string {
    return this.ctx.stateDir;
  }

  // Sessions
  async createSession(input: CreateSessionInput = {}): Promise<{ row: SessionRow; created: boolean }> {
    return createSession(this.ctx, input);
  }
  async getSession(id: string): Promise<SessionDetail> {
    return getSession(this.ctx, id);
  }
  hasSession(id: string): boolean {
    return this.ctx.registry.has(id);
  }
  listSessions(options?: ListOptions): ListPage {
    return listSessions(this.ctx, options);
  }
  countSessions(filter?: ListFilter): number {
    return countSessions(this.ctx, filter);
  }
  async updateSession(id: string, input: UpdateSessionInput): Promise<SessionRow> {
    return updateSession(this.ctx, id, input);
  }
  async setArchived(id: string, archived: boolean): Promise<SessionRow> {
    return setArchived(this.ctx, id, archived);
  }
  async deleteSession(id: string): Promise<{ id: string }> {
    return deleteSession(this.ctx, id);
  }
  async regenerateTitle(id: string): Promise<SessionRow> {
    return regenerateTitle(this.ctx, id);
  }

  // Messages and branches
  async appendMessage(sessionId: string, message: AppendMessageInput): Promise<Message> {
    return appendMessage(this.ctx, sessionId, message);
  }
  appendRecordNode(sessionId: string, build: (seq: number, now: number) => StoredNode): Promise<Message> {
    return appendRecordNode(this.ctx, sessionId, build);
  }
  async getBranch(sessionId: string, headId?: string | null): Promise<BranchMessage[]> {
    return getBranch(this.ctx, sessionId, headId);
  }
  async getNodes(sessionId: string): Promise<Message[]> {
    return getNodes(this.ctx, sessionId);
  }
  /** message.nodes: by seq, a page at a time. */
  async listNodes(sessionId: string, options: { limit?: number; cursor?: string | null } = {}): Promise<NodePage> {
    return listNodes(this.ctx, sessionId, options);
  }
  /** `git bundle create - --all` of the session repo, streamed. */
  async bundle(sessionId: string): Promise<GitStream> {
    return bundleSession(this.ctx, sessionId);
  }
  async listBranches(sessionId: string): Promise<BranchInfo[]> {
    return listBranches(this.ctx, sessionId);
  }
  async setHead(sessionId: string, headId: string): Promise<{ headId: string }> {
    return setHead(this.ctx, sessionId, headId);
  }
  async retry(sessionId: string, assistantId: string): Promise<{ parentId: string | null }> {
    return retry(this.ctx, sessionId, assistantId);
  }
  /** A page of a branch: the newest `limit` messages up to its head, or before a message. */
  async getBranchWindow(sessionId: string, options: BranchWindowOptions): Promise<BranchMessage[]> {
    return getBranchWindow(this.ctx, sessionId, options);
  }
  /** The newest branch tip through a message: where a switch to that message's branch lands. */
  async tipOf(sessionId: string, nodeId: string): Promise<{ headId: string }> {
    return getTipOf(this.ctx, sessionId, nodeId);
  }

  // Turns and the timeline
  async beginTurn(sessionId: string): Promise<BeginTurnResult> {
    return beginTurn(this.ctx, sessionId);
  }
  async finalizeTurn(sessionId: string, input?: FinalizeTurnInput): Promise<FinalizeTurnResult> {
    return finalizeTurn(this.ctx, sessionId, input);
  }
  async listCommits(sessionId: string, options?: { limit?: number; cursor?: string | null }): Promise<CommitPage> {
    return listCommits(this.ctx, sessionId, options);
  }
  /** timeline.list: the turns newest first, with what each added, its project commit or why none, its forks. */
  async listTurns(sessionId: string, options?: { limit?: number; cursor?: string | null }): Promise<TimelinePage> {
    return listTurns(this.ctx, sessionId, options);
  }
  /** The session exactly as a turn commit holds it, read from git. */
  async branchAt(sessionId: string, sha: string): Promise<SessionAt> {
    return sessionAt(this.ctx, sessionId, sha);
  }
  /** The conversation DAG (user and assistant messages) with its tips, for the branch graph. */
  async conversationDag(sessionId: string): Promise<ConversationDag> {
    return conversationDag(this.ctx, sessionId);
  }
  /** What one turn commit changed in the session repo, file by file. */
  async commitDiff(sessionId: string, sha: string): Promise<CommitDiff> {
    return diffCommit(this.ctx, sessionId, sha);
  }

  async undoTurn(sessionId: string, turn: number): Promise<UndoOutcome> {
    return undoTurn(this.ctx, sessionId, turn);
  }
  async redoTurn(sessionId: string, turn: number): Promise<UndoOutcome> {
    return redoTurn(this.ctx, sessionId, turn);
  }
  /** context/commits/<replyId>.json: what was sent to the model for that reply. */
  async writeContextFile(sessionId: string, replyId: string, context: unknown): Promise<void> {
    return writeContextFile(this.ctx, sessionId, replyId, context);
  }
  /** The built-in file tools call this before they change a project file during a turn. */
  async snapshotBeforeEdit(sessionId: string, relPath: string): Promise<void> {
    return snapshotBeforeEdit(this.ctx, sessionId, relPath);
  }

  // Projects (entity-memory.zh.md §4)
  get projects(): ProjectStore {
    return this.ctx.projects;
  }
  async listProjects(): Promise<ProjectSummary[]> {
    return this.ctx.projects.list();
  }
  async createProject(path: string, name?: string): Promise<ProjectDetail & { created: boolean }> {
    return this.ctx.projects.resolve(path, name);
  }
  async relocateProject(projectId: string, path: string, sessionId?: string): Promise<{ oldPath: string; path: string; nodeId: string | null }> {
    return relocateProject(this.ctx, projectId, path, sessionId);
  }
  async unregisterProject(projectId: string): Promise<{ id: string }> {
    return unregisterProject(this.ctx, projectId);
  }
  async setProjectAutoCommit(projectId: string, on: boolean): Promise<ProjectDetail> {
    return setProjectAutoCommit(this.ctx, projectId, on);
  }
  async setSessionProject(sessionId: string, projectId: string): Promise<SessionRow> {
    return setSessionProject(this.ctx, sessionId, projectId);
  }
  async setWorkdirs(sessionId: string, workdirs: string[]): Promise<SessionRow> {
    return setWorkdirs(this.ctx, sessionId, workdirs);
  }
  async projectCommits(projectId: string, limit = 50): Promise<ProjectCommit[]> {
    return listProjectCommits(this.ctx, projectId, limit);
  }
  async projectCommitDiff(projectId: string, sha: string): Promise<CommitDiff> {
    return projectCommitDiff(this.ctx, projectId, sha);
  }
  async saveAttachment(sessionId: string, upload: AttachmentUpload): Promise<SavedAttachment> {
    return saveSessionAttachment(this.ctx, sessionId, upload);
  }
  async resolveAttachment(sessionId: string, name: string): Promise<ResolvedAttachment> {
    return resolveSessionAttachment(this.ctx, sessionId, name);
  }

  // Provenance (entity-memory.zh.md §5)
  async nodeProvenance(sessionId: string, nodeId: string): Promise<Provenance | null> {
    return nodeProvenance(this.ctx, sessionId, nodeId);
  }
  async nodesAfter(sessionId: string, seq: number): Promise<Message[]> {
    return nodesAfter(this.ctx, sessionId, seq);
  }
  async sessionCommits(sessionId: string, limit = 50): Promise<CommitPage['commits']> {
    return sessionCommits(this.ctx, sessionId, limit);
  }

  // Lifecycle
  /** Registry durable now: append-path changes are otherwise logged within the debounce window. */
  async flush(): Promise<void> {
    return this.ctx.writer.writeNow();
  }
  /** For signal handlers: no awaiting, nothing left in memory only. */
  flushSync(): void {
    if (!this.closed) this.ctx.writer.flushSync();
  }
  /** Background work done: model titles, repacks, the registry snapshot after a rebuild. */
  async idle(): Promise<void> {
    while (this.ctx.background.size > 0) await Promise.allSettled([...this.ctx.background]);
    await this.ctx.repack.idle();
  }
  async close(): Promise<void> {
    if (this.closed) return;
    await this.idle();
    this.closed = true;
    // Background log writes and compaction finish, then index.json gets everything and the log empties.
    await this.ctx.writer.close();
  }
  /** Test and benchmark access to internals that have no API (cache size, registry writes). */
  get internals(): { cacheSize: number; registryWrites: number; registryCompactions: number; repacks: number } {
    const { writer } = this.ctx;
    return { cacheSize: this.ctx.cache.size, registryWrites: writer.writes, registryCompactions: writer.compactions, repacks: this.ctx.repack.repacks };
  }
}
