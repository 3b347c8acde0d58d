import { ConflictError, InvalidInputError, NotFoundError, PreconditionError, type Message, type SessionStore } from '@/lib/store/index';
import type { Attachment } from '@/lib/llm/conversation';
import type { ChatModel } from '@/lib/llm/chat-client';
import { runTurn, type TurnEnd, type TurnProgress } from './run-turn';
import { noteTurnEnded, noteTurnStarted } from './turn-journal';
import type { ChatEvent } from '@/server/events/live-events';

/**
 * The chat dispatcher (DESIGN §1 server/): a person's message becomes a turn. `send` writes the
 * user message (creating the session with it when there is none yet) and returns at once; the
 * reply streams as chat_* events while runTurn calls the model and the tools, and the turn ends
 * with finalize (session commit, project commit, titles). One running turn per session.
 */
export interface DispatcherDeps {
  /** to every open tab of that user (the event hub) */
  publish(userId: string, event: ChatEvent): void;
  /** `requested`: the chat's own pick, used when the server offers it (else the configured model) */
  chatModel(requested?: string | null): Promise<{ model: ChatModel } | { model: null; reason: string }>;
  /**
   * The user's move gate held for a turn's whole life (UserGate.continueWrite): called inside the
   * mutation that starts the turn, released when the turn has ended, so a move's freeze waits for
   * a reply still streaming and none of it lands after the final copy.
   */
  holdWrite(userId: string): () => void;
}

export interface SendInput {
  sessionId?: string;
  projectId?: string;
  content: string;
  attachmentIds?: string[];
  /** edit and resend: the new user message follows this one (null: a new first message) */
  parentId?: string | null;
  /** the model for this chat from now on (kept in its context/chat.json) */
  model?: string;
}

interface Running {
  abort: AbortController;
  done: Promise<TurnEnd>;
  progress: TurnProgress;
}

const WHY_NO_MODEL = 'chat needs a model';

export class ChatDispatcher {
  private readonly running = new Map<string, Running>();
  /** the newest failure per session, for a tab that opens after the chat_error went by */
  private readonly lastErrors = new Map<string, string>();

  constructor(private readonly deps: DispatcherDeps) {}

  isRunning(userId: string, sessionId: string): boolean {
    return this.running.has(`${userId}/${sessionId}`);
  }

  lastError(userId: string, sessionId: string): string | null {
    return this.lastErrors.get(`${userId}/${sessionId}`) ?? null;
  }

  /** The reply streaming now and its text so far (null when none streams). */
  streaming(userId: string, sessionId: string): { messageId: string; text: string } | null {
    const progress = this.running.get(`${userId}/${sessionId}`)?.progress;
    return progress?.replyId ? { messageId: progress.replyId, text: progress.text } : null;
  }

  async send(userId: string, store: SessionStore, input: SendInput): Promise<{ sessionId: string; userMessageId: string }> {
    const content = input.content.trim();
    if (content === '') throw new InvalidInputError('content must not be empty');
    const picked = input.model ?? (input.sessionId !== undefined && store.hasSession(input.sessionId) ? (await store.getChatSettings(input.sessionId)).model : null);
    const resolved = await this.deps.chatModel(picked);
    if (!resolved.model) throw new PreconditionError(`${WHY_NO_MODEL}: ${resolved.reason}`);
    const model = resolved.model;

    let sessionId = input.sessionId;
    let created = false;
    if (sessionId !== undefined) {
      if (!store.hasSession(sessionId)) throw new NotFoundError(`unknown session: ${sessionId}`);
      this.reserve(userId, sessionId);
    }
    try {
      if (sessionId !== undefined) {
        if (input.projectId !== undefined) await store.setSessionProject(sessionId, input.projectId);
      } else {
        if (input.parentId) throw new InvalidInputError('parentId needs a sessionId');
        if (input.attachmentIds?.length) throw new InvalidInputError('attachments need a session: create it, upload, then send with its sessionId');
        sessionId = (await store.createSession({ source: 'web', ...(input.projectId ? { projectId: input.projectId } : {}) })).row.id;
        created = true;
        this.reserve(userId, sessionId);
      }
    } catch (error) {
      if (sessionId !== undefined && !created) this.release(userId, sessionId);
      throw error;
    }
    const id = sessionId;

    let user: Message;
    let turn: number;
    try {
      const attachments = await this.attachmentsOf(store, id, input.attachmentIds ?? []);
      if (input.parentId) {
        const parent = (await store.getNodes(id)).find((node) => node.id === input.parentId);
        if (!parent) throw new NotFoundError(`unknown message: ${input.parentId}`);
      }
      turn = (await store.beginTurn(id, { selfTimed: true })).turn;
      try {
        if (input.model !== undefined) await store.setChatSettings(id, { model: input.model });
        user = await store.appendMessage(id, {
          role: 'user',
          content,
          ...(input.parentId !== undefined ? { parentId: input.parentId } : {}),
          metadata: attachments.length > 0 ? { attachments } : {},
        });
        // An edit forks: the new message is the head even though its parent was not.
        if (input.parentId !== undefined) await store.setHead(id, user.id);
      } catch (error) {
        await store.finalizeTurn(id, { status: 'failed' }).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      this.release(userId, id);
      // Never an empty shell: the session made for this message goes with it.
      if (created) await store.deleteSession(id).catch(() => undefined);
      throw error;
    }
    this.start(userId, store, id, model, turn);
    return { sessionId: id, userMessageId: user.id };
  }

  /** Retry: a new reply beside the one given (branch.retry moves the head back to its parent). */
  async retry(userId: string, store: SessionStore, sessionId: string, assistantId: string): Promise<{ sessionId: string; parentId: string | null }> {
    const resolved = await this.deps.chatModel(store.hasSession(sessionId) ? (await store.getChatSettings(sessionId)).model : null);
    if (!resolved.model) throw new PreconditionError(`${WHY_NO_MODEL}: ${resolved.reason}`);
    this.reserve(userId, sessionId);
    let turn: number;
    let parentId: string | null;
    try {
      ({ parentId } = await store.retry(sessionId, assistantId));
      turn = (await store.beginTurn(sessionId, { selfTimed: true })).turn;
    } catch (error) {
      this.release(userId, sessionId);
      throw error;
    }
    this.start(userId, store, sessionId, resolved.model, turn);
    return { sessionId, parentId };
  }

  /**
   * Answer again after a failed or stopped turn, from where it ended: a question or a tool result
   * at the head is answered; a reply cut short at the head gets a new reply beside it.
   */
  async resume(userId: string, store: SessionStore, sessionId: string): Promise<{ sessionId: string }> {
    const resolved = await this.deps.chatModel();
    if (!resolved.model) throw new PreconditionError(`${WHY_NO_MODEL}: ${resolved.reason}`);
    this.reserve(userId, sessionId);
    let turn: number;
    try {
      const last = (await store.getBranch(sessionId)).at(-1);
      if (!last) throw new PreconditionError('the session has no message to answer');
      if (last.role === 'assistant') await store.retry(sessionId, last.id);
      else if (last.role === 'system') throw new PreconditionError('the last message is a system message: send a message first');
      turn = (await store.beginTurn(sessionId, { selfTimed: true })).turn;
    } catch (error) {
      this.release(userId, sessionId);
      throw error;
    }
    this.start(userId, store, sessionId, resolved.model, turn);
    return { sessionId };
  }

  /**
   * Stop: the chat's own turn has its model call aborted; any other running turn (an agent's
   * that was never finalised) is ended by the store as interrupted. Both end `cancelled`, and
   * this resolves once they have. `cancelled: false` only when no turn was running at all.
   */
  async cancel(userId: string, store: SessionStore, sessionId: string): Promise<{ cancelled: boolean }> {
    if (await this.stop(userId, sessionId)) return { cancelled: true };
    return { cancelled: (await store.interruptTurn(sessionId, 'stopped')).interrupted };
  }

  /** The chat's own turn only: abort and wait (before a delete, so nothing writes into a session being removed). */
  async stop(userId: string, sessionId: string): Promise<boolean> {
    const running = this.running.get(`${userId}/${sessionId}`);
    if (!running) return false;
    running.abort.abort();
    await running.done;
    return true;
  }

  /**
   * Every chat turn of a user, aborted and waited for: a disabled user's model streams end at
   * once (DESIGN §2), each turn ending `cancelled` with what had arrived. Returns how many.
   */
  async stopUser(userId: string): Promise<number> {
    const prefix = `${userId}/`;
    const mine = [...this.running.entries()].filter(([key]) => key.startsWith(prefix)).map(([, running]) => running);
    for (const running of mine) running.abort.abort();
    await Promise.allSettled(mine.map((running) => running.done));
    return mine.length;
  }

  /** Every running turn (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running.values()].map((running) => running.done));
  }

  private reserve(userId: string, sessionId: string): void {
    const key = `${userId}/${sessionId}`;
    if (this.running.has(key)) throw new ConflictError('a turn is already running in this session');
    // A placeholder until the turn starts: a second send in between is a CONFLICT too.
    this.running.set(key, { abort: new AbortController(), done: Promise.resolve({ status: 'idle', replyId: null, error: null }), progress: { replyId: null, text: '' } });
  }

  private release(userId: string, sessionId: string): void {
    this.running.delete(`${userId}/${sessionId}`);
  }

  private start(userId: string, store: SessionStore, sessionId: string, model: ChatModel, turn: number): void {
    const key = `${userId}/${sessionId}`;
    const abort = new AbortController();
    noteTurnStarted(store, sessionId, { turn, model: model.model });
    this.lastErrors.delete(key);
    const publish = (event: ChatEvent) => this.deps.publish(userId, event);
    const progress: TurnProgress = { replyId: null, text: '' };
    const leaveGate = this.deps.holdWrite(userId);
    // An agent's session answered here (Retry, Edit, a message) keeps the title it has: the web chat's words would replace the agent's.
    const keepTitle = (store.getRow(sessionId)?.wayIn ?? 'web chat') !== 'web chat';
    const done = runTurn({ progress, store, sessionId, model, signal: abort.signal, publish, keepTitle })
      .catch((error: unknown): TurnEnd => {
        console.error(`[chat] turn of ${sessionId} failed:`, error);
        return { status: 'failed', replyId: null, error: (error as Error).message };
      })
      .then((end) => {
        try {
          noteTurnEnded(store, sessionId);
        } finally {
          leaveGate();
        }
        if (end.error) this.lastErrors.set(key, end.error);
        // Free before announcing: a client that sends on chat_done must not meet a CONFLICT.
        this.running.delete(key);
        if (end.status === 'failed') {
          publish({ type: 'chat_error', data: { sessionId, ...(end.replyId ? { messageId: end.replyId } : {}), message: end.error ?? 'the turn failed' } });
        } else {
          publish({ type: 'chat_done', data: { sessionId, messageId: end.replyId ?? '', status: end.status } });
        }
        return end;
      });
    this.running.set(key, { abort, done, progress });
  }

  private async attachmentsOf(store: SessionStore, sessionId: string, ids: string[]): Promise<Attachment[]> {
    const out: Attachment[] = [];
    for (const id of [...new Set(ids)]) {
      const file = await store.resolveAttachment(sessionId, id);
      out.push({ id, name: file.name, size: file.size, mime: file.mime });
    }
    return out;
  }
}
