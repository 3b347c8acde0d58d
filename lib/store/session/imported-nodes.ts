import { nodeRoleOf } from '../dag/message-shape.js';
import { previewOf } from '../registry/preview.js';
import { sliceCodePoints } from '../text.js';
import { titleFromFirstPrompt } from '../titles/first-prompt.js';
import type { MessageRole, SessionMeta, StoredNode } from '../types.js';
import { redactParts } from './redact-parts.js';
import type { StoreContext } from './store-context.js';

/** Another tool's nodes as our node files, and what each imported turn does to meta.json (DESIGN §10). */

/** One node as another tool recorded it: its own id and time (seconds), its own edges. */
export interface ImportNode {
  id: string;
  /** Unix seconds */
  createdAt: number;
  role: MessageRole;
  content: unknown;
  /** the conversation predecessor (null: a root); tool nodes have none */
  parentId: string | null;
  /** tool nodes: the assistant node that called them */
  calledBy?: string | null;
  name?: string;
  input?: unknown;
  metadata?: Record<string, unknown>;
}

interface NodeParts {
  content: unknown;
  input: unknown;
  metadata: Record<string, unknown>;
}

/** An imported node's message parts, redacted, and how many secrets were taken out of them. */
export type CleanParts = Map<ImportNode, { message: NodeParts; count: number }>;

/**
 * Secrets out of the nodes' parts before anything is written (DESIGN §10): a large import's are
 * redacted in the redactor's background, not on this thread (issue 27 item 1).
 */
export async function cleanPartsOf(ctx: StoreContext, nodes: ImportNode[]): Promise<CleanParts> {
  const parts = nodes.map((node): NodeParts => ({ content: node.content, input: node.input ?? null, metadata: { ...(node.metadata ?? {}) } }));
  const clean = await redactParts(ctx.redactor, parts);
  return new Map(nodes.map((node, i) => [node, clean[i]!]));
}

/** The node file of an imported node from its redacted parts, with the next seq. */
export function storedNode(node: ImportNode, seq: number, clean: CleanParts): { node: StoredNode; redacted: number } {
  const { message, count } = clean.get(node)!;
  const metadata = message.metadata ?? {};
  if (node.role === 'system') metadata['role'] = 'system';
  const caller = node.role === 'tool' ? (node.calledBy ?? '') : '';
  return {
    node: {
      id: node.id,
      created_at: node.createdAt,
      seq,
      role: nodeRoleOf(node.role),
      name: node.name ?? '',
      input: message.input ?? null,
      output: message.content ?? null,
      caller,
      predecessor: node.role === 'tool' ? null : node.parentId,
      reads: [],
      metadata,
    },
    redacted: count,
  };
}

export function commitMessageOf(nodes: StoredNode[]): string {
  const user = nodes.find((node) => node.role === 'user' && typeof node.output === 'string');
  if (!user) return 'import';
  const firstLine = (user.output as string).trim().split('\n')[0]?.trim() ?? '';
  return `turn: ${sliceCodePoints(firstLine, 60)}`;
}

function isConversation(node: StoredNode): boolean {
  return node.role === 'user' || node.role === 'llm';
}

export function lastTimeOf(nodes: StoredNode[]): number {
  return nodes.reduce((latest, node) => (node.created_at > latest ? node.created_at : latest), 0);
}

/** meta.json after a turn: head, recency, preview, turn count, secrets taken out. */
export function applyTurnToMeta(meta: SessionMeta, nodes: StoredNode[], redacted: number, finalHead: string | null): void {
  const lastConversation = [...nodes].reverse().find(isConversation);
  if (lastConversation) meta.head_id = lastConversation.id;
  if (finalHead) meta.head_id = finalHead;
  meta.updated_at = Math.max(typeof meta.updated_at === 'number' ? meta.updated_at : 0, lastTimeOf(nodes));
  const lastUser = [...nodes].reverse().find((node) => node.role === 'user');
  if (lastUser) meta.preview = previewOf(lastUser.output);
  // No title from the source (and none given by a person): the first prompt's, as the chat's phase 1 gives.
  if (meta.title === '' && meta._user_titled !== true) {
    const title = titleFromFirstPrompt(nodes.filter((node) => node.role === 'user').map((node) => node.output));
    if (title !== '') Object.assign(meta, { title, _auto_titled: true });
  }
  meta.turn_count = (typeof meta.turn_count === 'number' ? meta.turn_count : 0) + 1;
  if (redacted > 0) meta['redacted'] = (typeof meta['redacted'] === 'number' ? meta['redacted'] : 0) + redacted;
}
