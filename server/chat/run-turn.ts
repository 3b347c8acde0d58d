import { readFile, realpath } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { ChatModel, StreamedReply } from '@/lib/llm/chat-client';
import { chatUsage } from './chat-usage';
import { modelMessages, type Attachment } from '@/lib/llm/conversation';
import { cutToolResult, FILE_TOOLS, runFileTool, type ToolContext } from '@/lib/tools/file-tools';
import type { ToolRoots } from '@/lib/tools/confine';
import type { BranchMessage, SessionStore } from '@/lib/store/index';
import type { ChatEvent } from '@/server/events/live-events';

export interface TurnEnd {
  status: 'idle' | 'failed' | 'cancelled';
  replyId: string | null;
  error: string | null;
}

/** The reply streaming now, for a tab that opens in the middle of it (chat.state). */
export interface TurnProgress {
  replyId: string | null;
  text: string;
}

interface TurnInput {
  progress: TurnProgress;
  store: SessionStore;
  sessionId: string;
  model: ChatModel;
  signal: AbortSignal;
  publish(event: ChatEvent): void;
  /** the session's title stays as it is (an agent's session answered by the web chat) */
  keepTitle?: boolean;
}

/** Model calls per turn; the last one is offered no tools, so a turn always ends in text. */
const MAX_MODEL_CALLS = 8;
const INLINE_ATTACHMENT_BYTES = 64 * 1024;

const newReplyId = () => randomBytes(6).toString('hex');

/** Ours first (what the tools are and where they work), then the chat's own prompt when it has one. */
function systemPrompt(project: string, own: string | null): string {
  return [
    'You are the assistant of Entity Memory, which keeps this conversation as git history.',
    `The session's project folder is "${project}". Your file tools (read_file, write_file, list_directory, search_text) work inside it and the session's working directories only; paths are relative to the project folder.`,
    ...(own ? ['', own] : []),
  ].join('\n');
}

/**
 * The turn after the user message: model calls and tool calls until a reply without calls, then
 * finalize. The dispatcher announces the end (chat_done / chat_error) once the session is free.
 */
export async function runTurn({ progress, store, sessionId, model, signal, publish, keepTitle = false }: TurnInput): Promise<TurnEnd> {
  const session = await store.getSession(sessionId);
  const settings = await store.getChatSettings(sessionId);
  const written = new Set<string>();
  const tools = await toolContext(store, session.projectId, session.workdirs, sessionId, written);
  let end: TurnEnd = { status: 'idle', replyId: null, error: null };
  try {
    for (let call = 0; call < MAX_MODEL_CALLS; call++) {
      const replyId = newReplyId();
      end.replyId = replyId;
      const branch = await store.getBranch(sessionId);
      const messages = modelMessages(systemPrompt(session.project, settings.systemPrompt), branch, await attachmentTexts(store, sessionId, branch));
      const offered = call < MAX_MODEL_CALLS - 1 ? [...FILE_TOOLS] : [];
      await store.writeContextFile(sessionId, replyId, { model: model.model, tools: offered.map((tool) => tool.name), messages });
      let text = '';
      progress.replyId = replyId;
      progress.text = '';
      let reply: StreamedReply;
      try {
        reply = await model.streamChat({ messages, tools: offered, signal }, (delta) => {
          // offset: where the delta starts, so a tab that read the text so far can join without gaps.
          publish({ type: 'chat_delta', data: { sessionId, messageId: replyId, delta, offset: text.length } });
          text += delta;
          progress.text = text;
        });
      } catch (error) {
        const cancelled = signal.aborted;
        const message = cancelled ? 'stopped' : (error as Error).message;
        // What streamed before the failure is kept, marked as cut short.
        if (text !== '') {
          await store.appendMessage(sessionId, { id: replyId, role: 'assistant', content: text, name: model.model, metadata: { model: model.model, [cancelled ? 'cancelled' : 'error']: cancelled ? true : message } });
        }
        end = { status: cancelled ? 'cancelled' : 'failed', replyId: text !== '' ? replyId : null, error: cancelled ? null : message };
        break;
      }
      await store.appendMessage(sessionId, {
        id: replyId,
        role: 'assistant',
        content: reply.text,
        name: model.model,
        metadata: { model: model.model, usage: chatUsage(model.model, reply), ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}) },
      });
      progress.replyId = null; // a node now: no longer "in progress" for a tab that opens late
      if (reply.toolCalls.length === 0) break;
      for (const toolCall of reply.toolCalls) {
        const outcome = await runFileTool(toolCall.name, toolCall.arguments, tools);
        const cut = cutToolResult(outcome.output);
        let content = cut.text;
        let attachment: string | null = null;
        if (cut.cut) {
          const saved = await store.saveAttachment(sessionId, { name: `tool-result-${toolCall.id}.txt`, data: Buffer.from(outcome.output), mime: 'text/plain' });
          attachment = saved.id;
          content += `\n\n[cut: the result was ${cut.bytes} bytes; the first ${cut.text.length} characters are shown, the whole is kept as attachment ${saved.id}]`;
        }
        await store.appendMessage(sessionId, {
          role: 'tool',
          calledBy: replyId,
          name: toolCall.name,
          input: parseOrRaw(toolCall.arguments),
          content,
          metadata: { tool_call_id: toolCall.id, ...(outcome.refused ? { refused: true } : {}), ...(attachment ? { attachment } : {}) },
        });
      }
      if (signal.aborted) {
        end = { status: 'cancelled', replyId, error: null };
        break;
      }
    }
  } catch (error) {
    end = { status: signal.aborted ? 'cancelled' : 'failed', replyId: end.replyId, error: (error as Error).message };
  }
  try {
    await store.finalizeTurn(sessionId, { status: end.status, writtenPaths: [...written], model: model.model, keepTitle });
  } catch (error) {
    // Deleted meanwhile: nothing left to commit.
    if ((error as { code?: unknown }).code !== 'NOT_FOUND') throw error;
  }
  return end;
}

function parseOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The roots of the file tools: the project folder (the workspace for the default project) and
 * the extra working directories that exist. A project-folder write is snapshotted for undo first
 * and becomes a known write of the turn (DESIGN §4.8).
 */
async function toolContext(store: SessionStore, projectId: string, workdirs: string[], sessionId: string, written: Set<string>): Promise<ToolContext> {
  // a fork's tools write in its own worktree (DESIGN §14)
  const where = await store.sessionWorkdirState(sessionId, projectId);
  const real = async (path: string) => realpath(path).catch(() => null);
  const roots: ToolRoots = {
    project: (await real(where.path)) ?? where.path,
    workdirs: (await Promise.all(workdirs.map(real))).filter((path): path is string => path !== null),
  };
  return {
    roots,
    beforeWrite: async (write) => {
      if (!write.inProject || projectId === 'default') return;
      await store.snapshotBeforeEdit(sessionId, write.rel);
      written.add(write.rel);
    },
  };
}

/** Small text attachments go to the model inline; others by name. */
async function attachmentTexts(store: SessionStore, sessionId: string, branch: BranchMessage[]): Promise<Map<string, Attachment[]>> {
  const out = new Map<string, Attachment[]>();
  for (const message of branch) {
    const list = message.metadata['attachments'];
    if (message.role !== 'user' || !Array.isArray(list) || list.length === 0) continue;
    const files: Attachment[] = [];
    for (const entry of list as Attachment[]) {
      const file: Attachment = { id: entry.id, name: entry.name, size: entry.size, mime: entry.mime };
      if (entry.size <= INLINE_ATTACHMENT_BYTES && (entry.mime.startsWith('text/') || entry.mime === 'application/json')) {
        const resolved = await store.resolveAttachment(sessionId, entry.id).catch(() => null);
        if (resolved) file.text = await readFile(resolved.path, 'utf8').catch(() => undefined);
      }
      files.push(file);
    }
    out.set(message.id, files);
  }
  return out;
}
