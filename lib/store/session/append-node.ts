import { ConflictError } from '../errors.js';
import { assertNodeId, newNodeId } from '../ids.js';
import { appendedMessageOf, toMessage } from '../dag/message-shape.js';
import { isConversationMessage } from '../dag/graph.js';
import { previewOf } from '../registry/preview.js';
import { nodeFileName, writeMetaInPlace, writeNodeFile } from '../repo/session-files.js';
import { type OpenSession, type StoreContext } from './store-context.js';
import { changedRowFields } from '../registry/row.js';
import type { Message, RegistryEntry, StoredNode } from '../types.js';
import { withSession } from './session-access.js';

/**
 * A record node (relocation, undo): in the DAG and the history, but it neither moves the head
 * nor the session's recency (DESIGN §4.1). Its caller is "ROOT".
 */
export function appendRecordNode(
  ctx: StoreContext,
  sessionId: string,
  build: (seq: number, now: number) => StoredNode,
): Promise<Message> {
  return withSession(ctx, sessionId, (session) => {
    const node = build(session.graph.lastSeq + 1, ctx.now());
    assertNodeId(node.id);
    if (session.graph.get(node.id)) throw new ConflictError(`node ${node.id} already exists`);
    return writeNode(ctx, session, { ...node, caller: 'ROOT' });
  });
}

/** Count secrets taken out of a node about to be written: meta.json's `redacted` (written with the node). */
export function addRedacted(session: OpenSession, count: number): void {
  const before = session.meta['redacted'];
  session.meta = { ...session.meta, redacted: (typeof before === 'number' && Number.isSafeInteger(before) ? before : 0) + count };
}

export function uniqueNodeId(session: OpenSession): string {
  let id = newNodeId();
  while (session.graph.get(id)) id = newNodeId();
  return id;
}

/**
 * Node file, then meta.json, then memory; the registry follows within the debounce window.
 * The node's message parts pass the redactor here (counted) unless the caller says it redacted
 * them already (an append does, before its idempotency check): records, chat settings and the
 * like are written through here with nothing else between them and disk (issue 27 item 7).
 */
export function writeNode(ctx: StoreContext, session: OpenSession, given: StoredNode, options: { markUnread?: boolean; partsRedacted?: boolean } = {}): Message {
  let node = given;
  if (ctx.redactor && options.partsRedacted !== true) {
    const { message, count } = ctx.redactor({ content: node.output, input: node.input, metadata: node.metadata });
    if (count > 0) {
      node = { ...node, output: message.content, input: message.input ?? null, metadata: message.metadata ?? {} };
      addRedacted(session, count);
    }
  }
  const isRecord = node.caller === 'ROOT';
  const fileName = nodeFileName(node, session.seqWidth);
  ctx.writer.journal(session.id);
  const { chars: fileChars, redacted } = writeNodeFile(session.dir, fileName, node, ctx.redactor);
  if (redacted > 0) addRedacted(session, redacted);

  const meta = { ...session.meta };
  const movesHead = node.caller === '' && isConversationMessage(node) && node.predecessor === (meta.head_id ?? null);
  if (movesHead) meta.head_id = node.id;
  const registryFields: Partial<RegistryEntry> = {};
  if (!isRecord) {
    meta.updated_at = node.created_at;
    registryFields.updated_at = node.created_at;
  }
  if (node.role === 'user') {
    const preview = previewOf(node.output);
    meta.preview = preview;
    registryFields.preview = preview;
  }
  if (options.markUnread) {
    meta.unread = true;
    registryFields.unread = true;
  }
  writeMetaInPlace(session.dir, meta, ctx.redactor);
  session.meta = meta;
  session.graph.add(node, fileChars);
  session.fileNames.set(node.id, fileName);
  // The cache sizes an entry when it is added (a set of the same value keeps the old size):
  // add it again so the budget sees the growth.
  if (ctx.cache.peek(session.id) === session) {
    ctx.cache.delete(session.id);
    ctx.cache.set(session.id, session);
  }
  if (session.commit) session.uncommitted.push(fileName);
  const turn = ctx.turns.get(session.id);
  if (turn) turn.lastActivityAt = ctx.now();

  const message = toMessage(node);
  const changed = ctx.registry.patch(session.id, registryFields);
  if (changed.length > 0) ctx.writer.markDirty();
  ctx.events.emit('message_appended', { sessionId: session.id, message: appendedMessageOf(node, fileChars) });
  if (!isRecord) {
    const entry = ctx.registry.get(session.id)!;
    ctx.events.emit('session_updated', { id: session.id, ...changedRowFields(ctx, entry, ['updated_at', 'preview', ...(changed.includes('unread') ? ['unread'] : [])]) });
  }
  return message;
}
