import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LRUCache } from 'lru-cache';
import { DIR_MODE } from '../fs/atomic-write.js';
import { KeyedLock } from '../fs/keyed-lock.js';
import { StoreEvents, type StoreEvent } from './events.js';
import { ChangeFeed } from './changes/change-feed.js';
import { Registry } from './registry/registry.js';
import { DEBOUNCE_MS, RegistryWriter } from './registry/index-file.js';
import { loadLocations } from './session/locations.js';
import { startUp, type StartupReport } from './session/startup.js';
import { RepackQueue } from './repo/repack.js';
import type { OpenSession, StoreContext } from './session/store-context.js';
import { ProjectStore } from './projects/index.js';
import { FileRecovery } from './recovery/file-recovery.js';
import { nowSeconds } from './time.js';
import { maxMessageBytesFromEnv } from './dag/message-size.js';
import type { TitleModel } from './titles/title-model.js';
import type { Redactor, AgentSummary, BranchInfo, BranchMessage, ListFilter, ListOptions, ListPage, Message, SessionDetail, SessionRow, StoredNode } from './types.js';
import { createSession, type CreateSessionInput } from './operations/create-session.js';
import { appendMessage, type AppendMessageInput, type AppendOptions } from './operations/append-message.js';
import { appendRecordNode } from './session/append-node.js';
import { countSessions, getRow, getSession, listAgents, listSessions } from './operations/list-sessions.js';
import { setArchived, updateSession, type UpdateSessionInput } from './operations/update-session.js';
import { TagCatalog, type TagColour, type TagSummary } from './organise/tag-catalog.js';
import { editSessionTags } from './operations/edit-tags.js';
import { listNotes, setNote, type SessionNote } from './operations/session-notes.js';
import type { NoteTarget } from './organise/notes-format.js';
import { deleteSession } from './operations/delete-session.js';
import { getBranch, getNodes, getNodesById, listBranches, listNodes, type NodePage } from './operations/read-branch.js';
import { retry, setHead } from './operations/move-head.js';
import {
  beginTurn,
  finalizeTurn,
  interruptTurn,
  sweepIdleTurns,
  type BeginTurnResult,
  type FinalizeTurnInput,
  type FinalizeTurnResult,
  type InterruptTurnResult,
} from './operations/commit-turn.js';
import type { TurnInterruptReason } from './types.js';
import { listCommits, type CommitPage } from './session/commit-page.js';
import { getBranchAround, getBranchWindow, getTipOf, type BranchAround, type BranchWindowOptions } from './operations/branch-window.js';
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
import type { ProjectDetail, ProjectInspection, ProjectSummary } from './projects/index.js';
import { listProjectsWithCounts } from './operations/list-projects.js';
import { listProjectCommits, projectCommitDiff, type ListedProjectCommit } from './operations/project-commits.js';
import { setProjectAutoCommit } from './operations/set-project-auto-commit.js';
import { unregisterProject } from './operations/unregister-project.js';
import { sessionCommits } from './operations/session-commits.js';
import type { AttachmentUpload, ResolvedAttachment, SavedAttachment } from './repo/attachments.js';
import { writeContextFile } from './operations/context-file.js';
import { recordExchange, type RecordExchangeInput, type RecordExchangeResult } from './operations/record-exchange.js';
import { placeOfAgent, type AgentWhereabouts } from './operations/agent-project.js';
import { addAgentFolderAsProject, moveFromHome } from './operations/add-agent-folder.js';
import { noteAgentFolder } from './session/agent-folder.js';
import { DEFAULT_PROJECT_ID } from './ids.js';
import { importSession, type ImportSessionInput, type ImportSessionResult } from './operations/import-session.js';
import { importStateSession, type MigrationStepHook, type StateSessionInput } from './operations/import-state-session.js';
import { projectMigrationBlock } from './session/migration-journal.js';
import { checkStateSource, stateTurnsOf } from './session/state-source.js';
import { getChatSettings, setChatSettings, type ChatSettings } from './operations/chat-settings.js';
import { bundleSession } from './operations/bundle-session.js';
import type { GitStream } from './git/git-cli.js';
import { checkRegistry, type RegistryCheck } from './operations/check-registry.js';

export interface SessionStoreOptions {
  /** an OpenProgram state directory (sessions/, projects/) */
  stateDir: string;
  /** the user's workspace: default project "Home" and the first allowed root */
  workspaceRoot?: string;
  /** roots outside the state directory where session repos and projects may live */
  allowedRoots?: string[];
  /** LRU cap of open sessions; default OPENPROGRAM_SESSION_CACHE_CAP or 256 */
  cacheCap?: number;
  /** what the open sessions may hold in memory, in characters of node files (default 64 Mi) */
  cacheChars?: number;
  titleModel?: TitleModel | null;
  /** agent sessions (not the web chat's) titled by the model too; default true, the server passes each user's setting */
  titleAgentSessions?: boolean;
  /** shared across the stores of one process so repacks never pile up */
  repackQueue?: RepackQueue;
  debounceMs?: number;
  /** bytes of registry log after which it is compacted into index.json (default 4 MB) */
  compactBytes?: number;
  /** compaction timer when anything was logged since the last snapshot (default 60 s) */
  compactIntervalMs?: number;
  /** the cap on one message's bytes; default OPENPROGRAM_MAX_MESSAGE_BYTES or 1 MiB */
  maxMessageBytes?: number;
  /** seconds; injectable so tests can age sessions */
  now?: () => number;
  /** secrets out of every message on the way in (lib/redact's redactMessage); default none */
  redactor?: Redactor | null;
  /** a turn with no activity this long (ms) is ended by itself; 0 turns the sweep off. Default OPENPROGRAM_TURN_IDLE_MS or 10 minutes */
  turnIdleMs?: number;
}

const DEFAULT_TURN_IDLE_MS = 10 * 60_000;

/** OPENPROGRAM_TURN_IDLE_MS: a non-negative integer (0: never), else the default. */
export function turnIdleMsFromEnv(value = process.env['OPENPROGRAM_TURN_IDLE_MS']): number {
  if (value === undefined || value.trim() === '') return DEFAULT_TURN_IDLE_MS;
  const ms = Number(value);
  return Number.isSafeInteger(ms) && ms >= 0 ? ms : DEFAULT_TURN_IDLE_MS;
}

const DEFAULT_CACHE_CHARS = 64 * 1024 * 1024;

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
  /** users/<id>/changes/ (DESIGN §3): what the search index and later consumers read from */
  readonly changes: ChangeFeed;
  readonly startup: StartupReport;
  private readonly ctx: StoreContext;
  private closed = false;
  /** the limit of the idle sweep (ms; 0: off) */
  readonly turnIdleMs: number;
  private readonly idleTimer: NodeJS.Timeout | null;

  private constructor(ctx: StoreContext, startup: StartupReport, turnIdleMs: number) {
    this.ctx = ctx;
    this.events = ctx.events;
    this.changes = ctx.changes;
    this.startup = startup;
    this.turnIdleMs = turnIdleMs;
    // Checked often enough that a turn ends within a quarter of the limit past it, at most once a minute.
    this.idleTimer = turnIdleMs > 0 ? setInterval(() => void this.sweepIdleTurns(), Math.max(250, Math.min(60_000, turnIdleMs / 4))) : null;
    this.idleTimer?.unref();
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
      changes: new ChangeFeed(stateDir),
      locks: new KeyedLock(),
      cache: new LRUCache<string, OpenSession>({
        max: options.cacheCap ?? cacheCapFromEnv(),
        // One user's open sessions stay within a budget however many messages they hold; a
        // session larger than all of it is read from disk for each call instead of kept.
        maxSize: options.cacheChars ?? DEFAULT_CACHE_CHARS,
        sizeCalculation: (session) => Math.max(1, session.graph.retainedChars),
      }),
      locations: trusted,
      untrustedLocations: untrusted,
      repack: options.repackQueue ?? new RepackQueue(),
      titleModel: options.titleModel ?? null,
      titleAgentSessions: options.titleAgentSessions ?? true,
      projects,
      recovery: new FileRecovery(stateDir),
      allowedRoots,
      turns: new Map(),
      now: options.now ?? nowSeconds,
      maxMessageBytes: options.maxMessageBytes ?? maxMessageBytesFromEnv(),
      redactor: options.redactor ?? null,
      background: new Set(),
    };
    // Before anything can write (start-up itself resumes migrations): every event is a record.
    ctx.events.on('event', (event) => recordChange(ctx.changes, event));
    try {
      const startup = await startUp(ctx);
      // What a crash cut short between its files and its event: read again whole.
      for (const id of new Set([...startup.reconciled, ...startup.migrations.resumed])) ctx.changes.append(id, ctx.registry.has(id) ? 'created' : 'deleted');
      return new SessionStore(ctx, startup, options.turnIdleMs ?? turnIdleMsFromEnv());
    } catch (error) {
      ctx.changes.close();
      await ctx.writer.abandon();
      throw error;
    }
  }

  get stateDir(): string {
    return this.ctx.stateDir;
  }

  /** The user's redaction setting: applies from the next message on. */
  setRedactor(redactor: Redactor | null): void {
    this.ctx.redactor = redactor;
  }
  get redacting(): boolean {
    return this.ctx.redactor !== null;
  }

  /** The user's setting for agent sessions' titles: applies from the next finished turn on. */
  setTitleAgentSessions(on: boolean): void {
    this.ctx.titleAgentSessions = on;
  }

  // Sessions
  async createSession(input: CreateSessionInput = {}): Promise<{ row: SessionRow; created: boolean }> {
    return createSession(this.ctx, input);
  }
  async getSession(id: string): Promise<SessionDetail> {
    return getSession(this.ctx, id);
  }
  /** The listed row from memory (no file read), or null for an id not in this store. */
  getRow(id: string): SessionRow | null {
    return getRow(this.ctx, id);
  }
  hasSession(id: string): boolean {
    return this.ctx.registry.has(id);
  }
  listSessions(options?: ListOptions): ListPage {
    return listSessions(this.ctx, options);
  }
  /** The agents (agentId, source) that wrote sessions, with counts: the Chats page's filter. */
  listAgents(filter?: Pick<ListFilter, 'scope'>): AgentSummary[] {
    return listAgents(this.ctx, filter);
  }
  countSessions(filter?: ListFilter): number {
    return countSessions(this.ctx, filter);
  }
  /** DESIGN §16: the user's tags with their colours and counts; tags added/removed on one session. */
  listTags(): TagSummary[] {
    return this.tagCatalog.summarise(this.ctx.registry.values());
  }

  setTagColour(name: string, colour: TagColour): { name: string; colour: TagColour } {
    return this.tagCatalog.setColour(name, colour);
  }

  editTags(id: string, add: readonly string[], remove: readonly string[]): Promise<SessionRow> {
    return editSessionTags(this.ctx, id, add, remove);
  }

  /** DESIGN §16: a note on the session or a message (git notes); text null deletes it. */
  setNote(id: string, target: NoteTarget, text: string | null): Promise<SessionNote | null> {
    return setNote(this.ctx, id, target, text);
  }

  listNotes(id: string): Promise<SessionNote[]> {
    return listNotes(this.ctx, id);
  }

  private get tagCatalog(): TagCatalog {
    return (this.tagCatalogOnce ??= new TagCatalog(this.ctx.stateDir));
  }

  private tagCatalogOnce: TagCatalog | undefined;

  async updateSession(id: string, input: UpdateSessionInput): Promise<SessionRow> {
    return updateSession(this.ctx, id, input);
  }
  async setArchived(id: string, archived: boolean): Promise<SessionRow> {
    return setArchived(this.ctx, id, archived);
  }
  async deleteSession(id: string): Promise<{ id: string }> {
    return deleteSession(this.ctx, id);
  }
  /** A conversation recorded elsewhere: nodes with their own ids and times, one commit per turn. */
  async importSession(input: ImportSessionInput): Promise<ImportSessionResult> {
    return importSession(this.ctx, input);
  }

  /** A session repo of another OpenProgram-format state directory, moved in through the migration journal. */
  async importStateSession(input: StateSessionInput, onStep?: MigrationStepHook): Promise<ImportSessionResult> {
    // Known already: only the nodes it lacks, a commit per new turn.
    if (this.ctx.registry.has(input.id)) return importSession(this.ctx, { id: input.id, source: 'openprogram', turns: stateTurnsOf(checkStateSource(this.ctx, input)).turns });
    return importStateSession(this.ctx, input, onStep);
  }

  /** Why new bindings to a project are refused while a session is moved into it (or after that failed), or null. */
  projectMigrationBlock(projectId: string): string | null {
    return projectMigrationBlock(this.ctx.sessionsDir, projectId);
  }
  async regenerateTitle(id: string): Promise<SessionRow> {
    return regenerateTitle(this.ctx, id);
  }

  // Messages and branches
  /** `byAgent`: written through an agent's credentials (a token), so an assistant message marks the session unread (DESIGN §7). */
  async appendMessage(sessionId: string, message: AppendMessageInput, options?: AppendOptions): Promise<Message> {
    return appendMessage(this.ctx, sessionId, message, options);
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
  /** The nodes of these ids, whole (the search index reads a large message the feed named). */
  async getNodesById(sessionId: string, ids: readonly string[]): Promise<Message[]> {
    return getNodesById(this.ctx, sessionId, ids);
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
  /** A page of the branch around a message (a search hit), on the branch it is on; the head stays. */
  async getBranchAround(sessionId: string, messageId: string, limit: number): Promise<BranchAround> {
    return getBranchAround(this.ctx, sessionId, messageId, limit);
  }
  /** The newest branch tip through a message: where a switch to that message's branch lands. */
  async tipOf(sessionId: string, nodeId: string): Promise<{ headId: string }> {
    return getTipOf(this.ctx, sessionId, nodeId);
  }

  /**
   * A model exchange seen by the recording proxy: its new nodes in place (DESIGN §12), then one
   * turn commit with the exchange's status. The session is created first when it is new.
   */
  async recordExchange(
    input: RecordExchangeInput,
    options: { source: string; agentId: string; status?: 'idle' | 'failed' | 'cancelled'; model?: string; where?: AgentWhereabouts; answerEndedAt?: number },
  ): Promise<RecordExchangeResult & FinalizeTurnResult & { created: boolean }> {
    // Where the agent worked matters only for a new session (its project) or one in Home (the offer to add the folder).
    const existing = this.ctx.registry.get(input.sessionId);
    const place = options.where && (!existing || existing.project_id === DEFAULT_PROJECT_ID) ? await placeOfAgent(this.ctx, options.where) : null;
    const { created } = await createSession(this.ctx, { id: input.sessionId, source: options.source, agentId: options.agentId, ...(place?.projectId ? { projectId: place.projectId } : {}) });
    if (this.ctx.registry.get(input.sessionId)?.project_id === DEFAULT_PROJECT_ID) {
      // Begun in Home (an agent's first call named no folder, or the folder became a project since): moved, as "Add … as a project" would.
      if (place?.projectId) await moveFromHome(this.ctx, input.sessionId, place.projectId);
      else if (place?.folder) await noteAgentFolder(this.ctx, input.sessionId, place.folder);
    }
    const recorded = await recordExchange(this.ctx, input);
    // The agent ran its tools itself: its project folder is committed as it stands (DESIGN §14).
    const agentExchange = { callsTools: (input.reply?.toolCalls?.length ?? 0) > 0, answerEndedAt: options.answerEndedAt };
    const turn = await finalizeTurn(this.ctx, input.sessionId, { status: options.status ?? 'idle', model: options.model, agentExchange });
    return { ...recorded, ...turn, created };
  }

  /** "Add <folder> as a project" on an agent's session in Home: the folder becomes a project and the session moves into it. */
  async addAgentFolderAsProject(sessionId: string): Promise<{ session: SessionRow; project: ProjectDetail }> {
    return addAgentFolderAsProject(this.ctx, sessionId);
  }

  // Turns and the timeline
  /** `selfTimed`: the server drives this turn with its own time limit (the chat), so the idle sweep leaves it. */
  async beginTurn(sessionId: string, options?: { selfTimed?: boolean }): Promise<BeginTurnResult> {
    return beginTurn(this.ctx, sessionId, options);
  }
  /** Ends a running turn no caller will finalise: `cancelled`, a turn/interrupted note, one session commit. */
  async interruptTurn(sessionId: string, reason: TurnInterruptReason): Promise<InterruptTurnResult> {
    return interruptTurn(this.ctx, sessionId, { reason, idleMs: this.turnIdleMs });
  }
  /** The idle sweep once (the timer runs it): every turn quiet for turnIdleMs ends. Returns their ids. */
  async sweepIdleTurns(): Promise<string[]> {
    if (this.closed || this.turnIdleMs <= 0) return [];
    return sweepIdleTurns(this.ctx, this.turnIdleMs);
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
  /** The chat's model pick and system prompt (context/chat.json). */
  async getChatSettings(sessionId: string): Promise<ChatSettings> {
    return getChatSettings(this.ctx, sessionId);
  }
  /** Given fields replace the stored ones; a change appends a chat/settings record node. */
  async setChatSettings(sessionId: string, patch: { model?: string | null; systemPrompt?: string | null }): Promise<ChatSettings> {
    return setChatSettings(this.ctx, sessionId, patch);
  }
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
  /** Every project with its session count, counted in the registry (archived ones included). */
  async listProjects(): Promise<ProjectSummary[]> {
    return listProjectsWithCounts(this.ctx);
  }
  /** What adding this folder as a project would do (exists, a repository, already a project, what stops a git init). */
  async inspectProject(path: string): Promise<ProjectInspection> {
    return this.ctx.projects.inspect(path);
  }
  /** The workspace root first, then the roots an admin added. */
  get allowedRoots(): readonly string[] {
    return this.ctx.allowedRoots;
  }
  /** The roots an admin gave this user, besides the workspace: from the next call on. */
  setExtraRoots(roots: readonly string[]): void {
    const workspace = this.ctx.projects.workspaceRoot;
    const next = [workspace, ...roots.map((root) => resolve(root)).filter((root) => root !== workspace)];
    this.ctx.projects.setAllowedRoots(next);
    this.ctx.allowedRoots = next;
    this.ctx.trustedRoots = [this.ctx.stateDir, ...next];
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
  async projectCommits(projectId: string, limit = 50): Promise<ListedProjectCommit[]> {
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

  /** The registry against every meta.json (a moved store is verified with it). */
  async checkRegistry(): Promise<RegistryCheck> {
    return checkRegistry(this.ctx);
  }

  // Lifecycle
  /** Registry durable now: append-path changes are otherwise logged within the debounce window. */
  async flush(): Promise<void> {
    return this.ctx.writer.writeNow();
  }
  /** For signal handlers: no awaiting, nothing left in memory only. */
  flushSync(): void {
    if (this.closed) return;
    this.ctx.writer.flushSync();
    this.ctx.changes.syncNow();
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
    if (this.idleTimer) clearInterval(this.idleTimer);
    // Background log writes and compaction finish, then index.json gets everything and the log empties.
    await this.ctx.writer.close();
    this.ctx.changes.close();
  }
  /** Test and benchmark access to internals that have no API (cache size, registry writes). */
  get internals(): { cacheSize: number; registryWrites: number; registryCompactions: number; repacks: number } {
    const { writer } = this.ctx;
    return { cacheSize: this.ctx.cache.size, registryWrites: writer.writes, registryCompactions: writer.compactions, repacks: this.ctx.repack.repacks };
  }
}

/**
 * The one place a write of the history becomes a change-feed record: every writer (API, chat,
 * proxy, import, `--watch`, migration) emits its store events, so none can pass the feed by.
 */
function recordChange(changes: ChangeFeed, event: StoreEvent): void {
  if (event.type === 'message_appended') {
    const { message } = event.data;
    // A large message's event carries its stub: consumers read the node itself.
    changes.append(event.data.sessionId, 'nodes', { nodeIds: [message.id], ...(message.truncated ? {} : { message }) });
  }
  else if (event.type === 'session_created') changes.append(event.data.id, 'created');
  else if (event.type === 'session_updated') {
    if ('title' in event.data) changes.append(event.data.id, 'session');
  } else if (event.type === 'session_deleted') changes.append(event.data.id, 'deleted');
  // a note's words are indexed with the session read again (DESIGN §16)
  else if (event.type === 'note_changed') changes.append(event.data.sessionId, 'created');
}
