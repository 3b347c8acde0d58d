import { z } from 'zod';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '@/lib/store/index';
import { createTRPCRouter, sessionProcedure } from '../trpc';
import { cursorInput, labelInput, limitInput, nodeIdInput, sessionIdInput } from '../schemas';

const messageInput = z
  .object({
    id: nodeIdInput.optional(),
    role: z.enum(['user', 'assistant', 'tool', 'system']),
    /** text; a tool result may be any JSON value (the store refuses non-text for other roles) */
    content: z.unknown(),
    parentId: nodeIdInput.nullish(),
    calledBy: nodeIdInput.nullish(),
    name: labelInput().optional(),
    input: z.unknown().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((message, issues) => {
    // The store says the same; here it also names the field.
    if (message.content === undefined) {
      issues.addIssue({ code: 'custom', path: ['content'], message: 'is required' });
    } else if (message.role !== 'tool' && typeof message.content !== 'string') {
      issues.addIssue({ code: 'custom', path: ['content'], message: 'must be a string (only a tool result may be other JSON)' });
    }
    for (const field of ['content', 'input', 'metadata'] as const) {
      // Bounded here for a clear 400; JSON.stringify would overflow its stack on the way to disk.
      if (exceedsJsonDepth(message[field])) issues.addIssue({ code: 'custom', path: [field], message: `is nested deeper than ${MAX_JSON_DEPTH} levels` });
    }
    if (message.role === 'tool' && !message.calledBy) {
      issues.addIssue({ code: 'custom', path: ['calledBy'], message: 'a tool result needs calledBy: the assistant message that called it' });
    }
    if (message.role === 'tool' && message.parentId) {
      issues.addIssue({ code: 'custom', path: ['parentId'], message: 'a tool result hangs off its caller and has no parentId' });
    }
  });

/** Messages of a session: the DAG's conversation nodes as DESIGN §5's message shape. */
export const messageRouter = createTRPCRouter({
  /**
   * An omitted parentId means the current head; the head moves when the new message's parent is
   * the head. The same id again: the existing message if the content is the same, else CONFLICT.
   */
  append: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, message: messageInput }).strict())
    // Who wrote it is the server's to say, never the input's: an API token is an agent (DESIGN §7's unread dot).
    .mutation(({ ctx, input }) => ctx.store.appendMessage(ctx.sessionId, input.message, { byAgent: ctx.via === 'token' })),

  /**
   * Root → head (default the session head): user and assistant messages with siblings and toolCalls.
   * With `limit` only the newest that many; with `before` (a message id) the branch leading to that
   * message, without it; with `after` the oldest `limit` that follow it on the branch to headId.
   * A page whose oldest message has a parentId has older ones: ask again with its id as `before`.
   */
  branch: sessionProcedure
    .input(
      z
        .object({
          sessionId: sessionIdInput,
          headId: nodeIdInput.nullish(),
          limit: z.number().int().min(1).max(500).optional(),
          before: nodeIdInput.nullish(),
          after: nodeIdInput.nullish(),
        })
        .strict(),
    )
    .query(({ ctx, input }) =>
      input.limit === undefined && !input.before && !input.after
        ? ctx.store.getBranch(ctx.sessionId, input.headId)
        : ctx.store.getBranchWindow(ctx.sessionId, { headId: input.headId, limit: input.limit, before: input.before, after: input.after }),
    ),

  /**
   * `limit` messages around one (a search hit), half of them after it, on the branch it is on:
   * `{headId, current, messages}`. The head does not move; page on with `before` / `after` and that headId.
   */
  around: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, messageId: nodeIdInput, limit: z.number().int().min(1).max(500).optional() }).strict())
    .query(({ ctx, input }) => ctx.store.getBranchAround(ctx.sessionId, input.messageId, input.limit ?? 50)),

  /** Every message by seq, paged: `{messages, nextCursor}` (limit 1–200, default 200). */
  nodes: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, limit: limitInput.optional(), cursor: cursorInput.nullish() }).strict())
    .query(({ ctx, input }) => ctx.store.listNodes(ctx.sessionId, { limit: input.limit, cursor: input.cursor })),
});
