import type { StoreEvents } from './events.js';
import type { TagColour, TagSummary } from './organise/tag-catalog.js';
import type { NoteTarget } from './organise/notes-format.js';
import type { ChangeFeed } from './changes/change-feed.js';
import type { StartupReport } from './session/startup.js';
import type { StoreContext } from './session/store-context.js';
import { openStoreContext, type SessionStoreOptions } from './session/open-store.js';
export { turnIdleMsFromEnv, type SessionStoreOptions } from './session/open-store.js';
import type { Redactor, AgentSummary, BranchInfo, BranchMessage, ListFilter, ListOptions, ListPage, Message, SessionDetail, SessionRow, StoredNode, TurnInterruptReason } from './types.js';
import { createSession, type CreateSessionInput } from './operations/create-session.js';
import { appendMessage, type AppendMessageInput, type AppendOptions } from './operations/append-message.js';
import { appendRecordNode } from './session/append-node.js';
import { countSessions, getRow, getSession, listAgents, listSessions } from './operations/list-sessions.js';
import { setArchived, updateSession, type UpdateSessionInput } from './operations/update-session.js';
import { editSessionTags, listTags, setTagColour } from './operations/edit-tags.js';
import { listNotes, setNote, type SessionNote } from './operations/session-notes.js';
import { deleteSession } from './operations/delete-session.js';
import { getBranch, getNodes, getNodesById, listBranches, listNodes, type NodePage } from './operations/read-branch.js';
import { retry, setHead } from './operations/move-head.js';
import { beginTurn, finalizeTurn, interruptTurn, sweepIdleTurns, type BeginTurnResult, type FinalizeTurnInput, type FinalizeTurnResult, type InterruptTurnResult } from './operations/commit-turn.js';
import { listCommits, type CommitPage } from './session/commit-page.js';
import { getBranchAround, getBranchWindow, getTipOf, type BranchAround, type BranchWindowOptions } from './operations/branch-window.js';
import { readComparePaths, type ComparePaths } from './operations/compare-paths.js';
import { sessionAt, type SessionAt } from './operations/session-at.js';
import { newestTurnCommit } from './operations/newest-turn.js';
import { listTurns, type TimelinePage } from './operations/timeline-turns.js';
import { conversationDag, type ConversationDag } from './operations/conversation-dag.js';
import { diffCommit, type CommitDiff } from './operations/diff-commit.js';
import type { ProjectDetail, WorkdirState } from './projects/index.js';
import { ProjectMethods } from './session-store-projects.js';
import { nodeProvenance, nodesAfter, type Provenance } from './operations/provenance.js';
import { regenerateTitle } from './operations/regenerate-title.js';
import { redoTurn, snapshotBeforeEdit, undoTurn, type UndoOutcome } from './operations/undo-turn.js';
import { sessionCommits } from './operations/session-commits.js';
import { writeContextFile } from './operations/context-file.js';
import { readReplyContext, type ReplyContext } from './operations/reply-context.js';
import type { RecordExchangeInput, RecordExchangeResult } from './operations/record-exchange.js';
import { recordAgentExchange, type AgentExchangeOptions } from './flows/record-agent-exchange.js';
import { addAgentFolderAsProject, moveFromHome } from './operations/add-agent-folder.js';
import { forkAtTurn, type ForkAtTurnInput, type ForkResult } from './operations/fork-at-turn.js';
import { sessionWorkdirState } from './session/session-workdir.js';
import { importIntoProject } from './flows/import-into-project.js';
import { withSession } from './session/session-access.js';
import { importSession, type ImportSessionInput, type ImportSessionResult } from './operations/import-session.js';
import { importStateSession, type MigrationStepHook, type StateSessionInput } from './operations/import-state-session.js';
import { projectMigrationBlock } from './session/migration-journal.js';
import { checkStateSource, stateTurnsOf } from './session/state-source.js';
import { getChatSettings, setChatSettings, type ChatSettings } from './operations/chat-settings.js';
import { bundleSession } from './operations/bundle-session.js';
import type { GitStream } from './git/git-cli.js';
import { checkRegistry, type RegistryCheck } from './operations/check-registry.js';
import { SessionTrash } from './trash/index.js';

/**
 * The Session-Git store of one state directory: one method per operation of the seeds, each
 * delegating to operations/. Usable from a plain Node script.
 */
export class SessionStore extends ProjectMethods {
  readonly events: StoreEvents;
  /** users/<id>/changes/ (DESIGN §3): what the search index and later consumers read from */
  readonly changes: ChangeFeed;
  readonly startup: StartupReport;
  /** users/<id>/trash/ (DESIGN §17): retention's sessions, restorable */
  readonly trash: SessionTrash;
  private closed = false;
  /** the limit of the idle sweep (ms; 0: off) */
  readonly turnIdleMs: number;
  private readonly idleTimer: NodeJS.Timeout | null;

  private constructor(ctx: StoreContext, startup: StartupReport, turnIdleMs: number) {
    super(ctx);
    this.events = ctx.events;
    this.changes = ctx.changes;
    this.startup = startup;
    this.trash = new SessionTrash(ctx);
    this.turnIdleMs = turnIdleMs;
    // Checked often enough that a turn ends within a quarter of the limit past it, at most once a minute.
    this.idleTimer = turnIdleMs > 0 ? setInterval(() => void this.sweepIdleTurns(), Math.max(250, Math.min(60_000, turnIdleMs / 4))) : null;
    this.idleTimer?.unref();
  }

  static async open(options: SessionStoreOptions): Promise<SessionStore> {
    const { ctx, startup, turnIdleMs } = await openStoreContext(options);
    return new SessionStore(ctx, startup, turnIdleMs);
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
  /** The project a session is in, from memory, or null for an id not in this store. */
  sessionProjectId(id: string): string | null {
    return this.ctx.registry.get(id)?.project_id ?? null;
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
  /** DESIGN §16: the user's tags with their colours and counts; tags added/removed on one session; notes (git notes), text null deletes one. */
  listTags(): TagSummary[] {
    return listTags(this.ctx);
  }
  setTagColour(name: string, colour: TagColour): { name: string; colour: TagColour } {
    return setTagColour(this.ctx, name, colour);
  }
  editTags(id: string, add: readonly string[], remove: readonly string[]): Promise<SessionRow> {
    return editSessionTags(this.ctx, id, add, remove);
  }
  setNote(id: string, target: NoteTarget, text: string | null): Promise<SessionNote | null> {
    return setNote(this.ctx, id, target, text);
  }
  listNotes(id: string): Promise<SessionNote[]> {
    return listNotes(this.ctx, id);
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
  /** A conversation recorded elsewhere: nodes with their own ids and times, one commit per turn. */
  async importSession(input: ImportSessionInput): Promise<ImportSessionResult> {
    return importIntoProject(this.ctx, input);
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
  /** Compare (DESIGN §14): the common message, each branch's messages after it, each side's project changes. */
  async comparePaths(sessionId: string, a: string, b: string): Promise<ComparePaths> {
    return readComparePaths(this.ctx, sessionId, a, b);
  }
  // Agents: the recording proxy, their folders, forks
  /** A model exchange seen by the recording proxy, recorded as one turn (DESIGN §12). */
  async recordExchange(input: RecordExchangeInput, options: AgentExchangeOptions): Promise<RecordExchangeResult & FinalizeTurnResult & { created: boolean }> {
    return recordAgentExchange(this.ctx, input, options);
  }
  /** "Add <folder> as a project" on an agent's session in Home: the folder becomes a project and the session moves into it. */
  async addAgentFolderAsProject(sessionId: string): Promise<{ session: SessionRow; project: ProjectDetail }> {
    return addAgentFolderAsProject(this.ctx, sessionId);
  }
  /** "Fork from here" (DESIGN §14): a new session up to a turn, with the project's code of that turn in a worktree or branch. */
  async forkAtTurn(sessionId: string, input: ForkAtTurnInput): Promise<ForkResult> {
    return forkAtTurn(this.ctx, sessionId, input, { importSession: (fork) => importSession(this.ctx, fork), moveFromHome: (id, projectId) => moveFromHome(this.ctx, id, projectId) });
  }
  /** Where the session's turns run: a fork's worktree, else its project's folder. */
  async sessionWorkdirState(sessionId: string, projectId: string): Promise<WorkdirState> {
    return withSession(this.ctx, sessionId, (session) => sessionWorkdirState(this.ctx, session.meta, projectId));
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
  /** The newest turn commit and its turn (null: none but session init), without asking git again. */
  async newestTurn(sessionId: string): Promise<{ sha: string; turn: number } | null> {
    return newestTurnCommit(this.ctx, sessionId);
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
  /** What was sent for a reply: its context file and the system prompt it names by hash. */
  async readReplyContext(sessionId: string, replyId: string): Promise<ReplyContext> {
    return readReplyContext(this.ctx, sessionId, replyId);
  }
  /** The built-in file tools call this before they change a project file during a turn. */
  async snapshotBeforeEdit(sessionId: string, relPath: string): Promise<void> {
    return snapshotBeforeEdit(this.ctx, sessionId, relPath);
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
