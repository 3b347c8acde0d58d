import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import { assertNodeId } from '../ids.js';
import { contentOf, nodeRoleOf, toMessage } from '../dag/message-shape.js';
import { type StoreContext } from '../session/store-context.js';
import type { Message, MessageRole, StoredNode } from '../types.js';
import { withSession } from '../session/session-access.js';
import { addRedacted, uniqueNodeId, writeNode } from '../session/append-node.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { assertMessageSize } from '../dag/message-size.js';
import { redactParts } from '../session/redact-parts.js';

export interface AppendMessageInput {
  id?: string;
  role: MessageRole;
  /** text; a tool result may be any JSON value */
  content: unknown;
  parentId?: string | null;
  calledBy?: string | null;
  name?: string;
  input?: unknown;
  metadata?: Record<string, unknown>;
}

export interface AppendOptions {
  /** written by an agent rather than the person reading (the server decides: an API token) */
  byAgent?: boolean;
}

const ROLES: readonly MessageRole[] = ['user', 'assistant', 'tool', 'system'];

function validate(input: AppendMessageInput): void {
  if (!input || typeof input !== 'object') throw new InvalidInputError('message must be an object');
  if (!ROLES.includes(input.role)) throw new InvalidInputError(`role must be one of ${ROLES.join(', ')}`);
  if (input.id !== undefined) assertNodeId(input.id);
  if (input.parentId !== undefined && input.parentId !== null) assertNodeId(input.parentId);
  if (input.calledBy !== undefined && input.calledBy !== null) assertNodeId(input.calledBy);
  if (input.role !== 'tool' && typeof input.content !== 'string') throw new InvalidInputError('content must be a string');
  if (input.content === undefined) throw new InvalidInputError('content is required');
  if (input.name !== undefined && typeof input.name !== 'string') throw new InvalidInputError('name must be a string');
  if (input.metadata !== undefined && (input.metadata === null || typeof input.metadata !== 'object' || Array.isArray(input.metadata))) {
    throw new InvalidInputError('metadata must be an object');
  }
  for (const field of ['content', 'input', 'metadata'] as const) {
    if (exceedsJsonDepth(input[field])) throw new InvalidInputError(`${field} is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (input.role === 'tool') {
    if (!input.calledBy) throw new InvalidInputError('a tool result needs calledBy: the assistant message that called it');
    if (input.parentId) throw new InvalidInputError('a tool result hangs off its caller and has no parentId');
  }
}

/**
 * append_message of the seeds, with DESIGN §5's rules: an omitted parent is the head; the head
 * moves only when the new node's parent is the head; the same id with the same content is
 * idempotent, with other content a CONFLICT.
 */
export function appendMessage(ctx: StoreContext, sessionId: string, given: AppendMessageInput, options: AppendOptions = {}): Promise<Message> {
  validate(given);
  assertMessageSize(given, ctx.maxMessageBytes);
  return withSession(ctx, sessionId, async (session) => {
    // Before the idempotency check too: a retried append of a secret compares as its redacted self.
    // A large message in the redactor's background, in the session's order all the same (issue 27 item 1).
    const { message: input, count: redacted } = (await redactParts(ctx.redactor, [given]))[0]!;
    if (input.id !== undefined) {
      const stored = session.graph.get(input.id);
      if (stored) {
        const existing = session.graph.full(stored);
        const same = existing.role === nodeRoleOf(input.role) && contentOf(existing) === contentOf({ output: input.content } as StoredNode);
        if (!same) throw new ConflictError(`message ${input.id} already exists with other content`);
        return toMessage(existing);
      }
    }
    const caller = input.calledBy ?? null;
    if (caller !== null && !session.graph.get(caller)) throw new NotFoundError(`unknown calledBy message: ${caller}`);
    let predecessor: string | null;
    if (input.parentId !== undefined) predecessor = input.parentId;
    else predecessor = caller === null ? session.meta.head_id : null;
    if (predecessor !== null && !session.graph.get(predecessor)) throw new NotFoundError(`unknown parent message: ${predecessor}`);

    const metadata = { ...(input.metadata ?? {}) };
    if (input.role === 'system') metadata['role'] = 'system';
    const node: StoredNode = {
      id: input.id ?? uniqueNodeId(session),
      created_at: ctx.now(),
      seq: session.graph.lastSeq + 1,
      role: nodeRoleOf(input.role),
      name: input.name ?? '',
      input: input.input ?? null,
      output: input.content,
      caller: caller ?? '',
      predecessor,
      reads: [],
      metadata,
    };
    if (redacted > 0) addRedacted(session, redacted);
    // DESIGN §7: an agent's reply is news for the person, until they open the session.
    return writeNode(ctx, session, node, { markUnread: options.byAgent === true && input.role === 'assistant', partsRedacted: true });
  });
}
