import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DIR_MODE, atomicWriteFileSync } from '../../fs/atomic-write.js';
import { InvalidInputError } from '../errors.js';
import { isConversationMessage } from '../dag/graph.js';
import type { OpenSession, StoreContext } from '../session/store-context.js';
import { updateSessionFields, withSession } from '../session/session-access.js';
import { addRedacted, uniqueNodeId, writeNode } from '../session/append-node.js';
import { redactParts } from '../session/redact-parts.js';
import { recordRetryRef } from '../session/commit-state.js';
import type { Message, StoredNode } from '../types.js';

/**
 * One message of a recorded exchange, already read out of its wire format (the proxy does
 * that): a user message, a model message with its tool calls, or one tool call's result.
 */
export interface ExchangeStep {
  role: 'user' | 'assistant' | 'tool';
  /** user and assistant: the chained fingerprint of the conversation up to this message */
  fingerprint?: string;
  content: string;
  /** assistant: its calls; they become tool nodes when their results come */
  toolCalls?: { id: string; name: string; arguments: string }[];
  /** tool: the call it answers */
  callId?: string;
  metadata?: Record<string, unknown>;
}

export interface RecordExchangeInput {
  sessionId: string;
  /** the request's conversation, oldest first */
  steps: ExchangeStep[];
  /** the node the conversation continues (a previous_response_id), when the request holds only the new part */
  after?: string | null;
  /** the model's answer; null when none came (an upstream error before any byte) */
  reply: ExchangeStep | null;
  /** the system prompt: stored once per distinct text as context/system/<sha256>.txt */
  system?: string | null;
  /** written to context/commits/<replyId>.json beside the reply (the system prompt by hash only) */
  context?: Record<string, unknown>;
}

export interface RecordExchangeResult {
  /** the node the new part hangs from: the longest recorded prefix */
  parentId: string | null;
  added: Message[];
  replyId: string | null;
  /** the reply is a sibling of an earlier reply (a retry) */
  retried: boolean;
  /** no recorded prefix in a session that has messages: a compaction's continuation */
  continued: boolean;
  systemHash: string | null;
}

const FINGERPRINT = 'proxy_fingerprint';

/** What of a step is written, as the redactor sees it: its calls as its input. */
interface StepParts {
  content: unknown;
  input?: ExchangeStep['toolCalls'];
  metadata?: Record<string, unknown>;
}

/** fingerprint → node, per open session: built once from the nodes, kept up to date here. */
const indexes = new WeakMap<OpenSession, Map<string, string>>();

function fingerprintIndex(session: OpenSession): Map<string, string> {
  let index = indexes.get(session);
  if (!index) {
    index = new Map();
    for (const node of session.graph.bySeq) {
      const fingerprint = node.metadata[FINGERPRINT];
      if (typeof fingerprint === 'string' && !index.has(fingerprint)) index.set(fingerprint, node.id);
    }
    indexes.set(session, index);
  }
  return index;
}

function validate(input: RecordExchangeInput): void {
  if (!Array.isArray(input.steps)) throw new InvalidInputError('steps must be a list');
  for (const step of [...input.steps, ...(input.reply ? [input.reply] : [])]) {
    if (!['user', 'assistant', 'tool'].includes(step.role)) throw new InvalidInputError(`unknown step role ${String(step.role)}`);
    if (typeof step.content !== 'string') throw new InvalidInputError('step content must be text');
  }
  if (input.reply && input.reply.role !== 'assistant') throw new InvalidInputError('the reply must be an assistant step');
}

/**
 * DESIGN §12 "Where in the DAG": the longest recorded prefix of the request's conversation is
 * the parent; what follows it is appended (a retry: the same history again, so only a sibling
 * reply; an edit at message k: a fork at k-1); tool results fill tool nodes under the
 * assistant message that called them; a conversation with no recorded prefix in a session
 * that has messages (a compaction) continues from the head, linked by `continuation_of`. The
 * head moves to the reply, the session is marked unread. The caller commits the turn.
 */
export function recordExchange(ctx: StoreContext, input: RecordExchangeInput): Promise<RecordExchangeResult> {
  validate(input);
  return withSession(ctx, input.sessionId, async (session) => {
    const index = fingerprintIndex(session);
    const added: Message[] = [];
    let matched = -1;
    for (let i = input.steps.length - 1; i >= 0; i--) {
      const fingerprint = input.steps[i]!.fingerprint;
      if (fingerprint && index.has(fingerprint)) {
        matched = i;
        break;
      }
    }
    let parent: string | null = matched >= 0 ? index.get(input.steps[matched]!.fingerprint!)! : (input.after ?? null);
    if (parent !== null && !session.graph.get(parent)) parent = null;
    const headBefore = session.meta.head_id ?? null;
    const continued = matched < 0 && parent === null && headBefore !== null && session.graph.bySeq.some(isConversationMessage);
    if (continued) parent = headBefore;
    const parentId = parent;

    let caller: StoredNode | null = null;
    for (const node of parent ? session.graph.branchTo(parent) : []) if (node.role === 'llm') caller = node;
    // Secrets out of everything this writes, before any of it is (DESIGN §10): the steps not yet
    // recorded, tool results, the reply, the system prompt, the context file. A large request's
    // texts are redacted in the redactor's background, not on this thread (issue 27 item 1).
    // A message's count goes to meta.json (session.get `redacted`) when it is written.
    const toWrite = input.steps.filter((step, i) => step.role === 'tool' || i > matched);
    if (input.reply) toWrite.push(input.reply);
    const [systemClean, contextClean, ...stepsClean] = await redactParts<StepParts>(ctx.redactor, [
      { content: input.system ?? null },
      { content: input.context ?? {} },
      ...toWrite.map((step) => ({ content: step.content, input: step.toolCalls, metadata: { ...(step.metadata ?? {}), ...(step.callId !== undefined ? { tool_call_id: step.callId } : {}) } })),
    ]);
    const clean = new Map<ExchangeStep, { step: ExchangeStep; count: number }>();
    toWrite.forEach((step, i) => {
      const { message, count } = stepsClean[i]!;
      const { tool_call_id: callId, ...metadata } = message.metadata ?? {};
      clean.set(step, { step: { ...step, content: String(message.content), toolCalls: message.input, metadata, ...(step.role === 'tool' ? { callId: String(callId) } : {}) }, count });
    });
    const cleaned = (given: ExchangeStep): ExchangeStep => {
      const found = clean.get(given)!;
      if (found.count > 0) addRedacted(session, found.count);
      return found.step;
    };
    const append = (given: ExchangeStep, extra: Record<string, unknown> = {}): StoredNode => {
      const step = cleaned(given);
      const metadata: Record<string, unknown> = { ...(step.metadata ?? {}), ...extra };
      if (step.fingerprint) metadata[FINGERPRINT] = step.fingerprint;
      if (step.toolCalls && step.toolCalls.length > 0) metadata['tool_calls'] = step.toolCalls;
      const node: StoredNode = {
        id: uniqueNodeId(session),
        created_at: ctx.now(),
        seq: session.graph.lastSeq + 1,
        role: step.role === 'user' ? 'user' : 'llm',
        name: typeof metadata['model'] === 'string' ? (metadata['model'] as string) : '',
        input: null,
        output: step.content,
        caller: '',
        predecessor: parent,
        reads: [],
        metadata,
      };
      added.push(writeNode(ctx, session, node, { partsRedacted: true }));
      if (step.fingerprint && !index.has(step.fingerprint)) index.set(step.fingerprint, node.id);
      parent = node.id;
      return node;
    };
    const fillResult = (given: ExchangeStep): void => {
      if (!caller || !given.callId) return;
      const calls = Array.isArray(caller.metadata['tool_calls']) ? (caller.metadata['tool_calls'] as { id?: string; name?: string; arguments?: string }[]) : [];
      // The caller's calls were stored redacted, so the result's call id is matched redacted too.
      const callId = clean.get(given)!.step.callId;
      const call = calls.find((item) => item.id === callId);
      if (!call) return;
      if (session.graph.toolCallsOf(caller.id).some((node) => node.metadata['tool_call_id'] === callId)) return;
      const step = cleaned(given);
      const node: StoredNode = {
        id: uniqueNodeId(session),
        created_at: ctx.now(),
        seq: session.graph.lastSeq + 1,
        role: 'code',
        name: call.name ?? '',
        input: parseOrRaw(call.arguments ?? ''),
        output: step.content,
        caller: caller.id,
        predecessor: null,
        reads: [],
        metadata: { ...(step.metadata ?? {}), tool_call_id: callId },
      };
      added.push(writeNode(ctx, session, node, { partsRedacted: true }));
    };

    let first = true;
    input.steps.forEach((step, i) => {
      if (step.role === 'tool') return fillResult(step);
      if (i <= matched) {
        // Already recorded: follow it, so the results after it find their caller.
        const node = session.graph.get(index.get(step.fingerprint ?? '') ?? '');
        if (node?.role === 'llm') caller = node;
        return;
      }
      const node = append(step, first && continued ? { continuation_of: headBefore } : {});
      first = false;
      if (node.role === 'llm') caller = node;
    });

    let replyId: string | null = null;
    let retried = false;
    const systemHash = input.system ? storeSystemPrompt(session, String(systemClean!.message.content)) : null;
    if (input.reply) {
      const earlier = session.graph.childrenOf(parent).map((id) => session.graph.get(id)!).filter((node) => node.role === 'llm');
      const reply = append(input.reply);
      replyId = reply.id;
      if (earlier.length > 0) {
        retried = true;
        await recordRetryRef(session, earlier.at(-1)!.id, ctx.redactor);
      }
      const dir = join(session.dir, 'context', 'commits');
      mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      const context = contextClean!.message.content as Record<string, unknown>;
      // Not fsynced here: the turn commit that follows fsyncs what it adds (DESIGN §4.2).
      atomicWriteFileSync(join(dir, `${reply.id}.json`), `${JSON.stringify({ ...context, system: systemHash })}\n`, { durable: false });
    }
    const head = parent;
    const fields: Record<string, unknown> = {};
    if (head !== null && session.meta.head_id !== head) fields['head_id'] = head;
    if (replyId !== null && session.meta.unread !== true) fields['unread'] = true;
    if (Object.keys(fields).length > 0) await updateSessionFields(ctx, session, fields, { writeNow: false });
    return { parentId, added, replyId, retried, continued, systemHash };
  });
}

/** context/system/<sha256>.txt, written once per distinct text (agents resend tens of KB each call). */
function storeSystemPrompt(session: OpenSession, text: string): string {
  const hash = createHash('sha256').update(text).digest('hex');
  const dir = join(session.dir, 'context', 'system');
  const path = join(dir, `${hash}.txt`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    atomicWriteFileSync(path, text, { durable: false });
  }
  return hash;
}

function parseOrRaw(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
