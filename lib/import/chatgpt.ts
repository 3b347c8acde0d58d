import type { ImportNode } from '../store/index.js';
import { nodeIdOf, sessionIdOf } from './ids.js';
import { arrayElements } from './json-array.js';
import { isRecord } from './lines.js';
import type { ParsedSession, SkippedLine } from './types.js';

/**
 * A ChatGPT export (`conversations.json`, `conversations-NNN.json`, IMPORT.md §3): each
 * conversation's `mapping` is a tree; every branch of it is kept, hidden nodes (the root, empty
 * system nodes, custom instructions and memory, reasoning) are left out and their children joined
 * to the nearest shown ancestor; a message to a tool (recipient ≠ all) and the tool's answer
 * become a tool call under that assistant message.
 */

const HIDDEN_CONTENT = new Set(['user_editable_context', 'model_editable_context']);
const REASONING_CONTENT = new Set(['thoughts', 'reasoning_recap']);

interface RawNode {
  id: string;
  parent: string | null;
  message: Record<string, unknown> | null;
}

type Kind = 'hidden' | 'reasoning' | 'user' | 'assistant' | 'system' | 'call' | 'tool';

function textOfContent(content: Record<string, unknown>): { text: string; images: Record<string, unknown>[] } {
  const images: Record<string, unknown>[] = [];
  if (Array.isArray(content['parts'])) {
    const texts: string[] = [];
    for (const part of content['parts']) {
      if (typeof part === 'string') texts.push(part);
      else if (isRecord(part) && part['content_type'] === 'image_asset_pointer') {
        images.push({ asset_pointer: part['asset_pointer'], width: part['width'], height: part['height'] });
      } else if (isRecord(part) && typeof part['text'] === 'string') texts.push(part['text']);
    }
    return { text: texts.join('\n').trim(), images };
  }
  if (typeof content['text'] === 'string') return { text: content['text'], images };
  if (typeof content['result'] === 'string') return { text: content['result'], images };
  if (typeof content['content'] === 'string') return { text: content['content'], images };
  return { text: '', images };
}

function kindOf(message: Record<string, unknown> | null): Kind {
  if (!message) return 'hidden';
  const author = isRecord(message['author']) ? message['author'] : {};
  const role = author['role'];
  const metadata = isRecord(message['metadata']) ? message['metadata'] : {};
  const content = isRecord(message['content']) ? message['content'] : {};
  const contentType = String(content['content_type'] ?? '');
  if (HIDDEN_CONTENT.has(contentType) || metadata['is_user_system_message'] === true) return 'hidden';
  if (REASONING_CONTENT.has(contentType)) return 'reasoning';
  if (role === 'tool') return 'tool';
  if (role === 'system') return metadata['is_visually_hidden_from_conversation'] === true || textOfContent(content).text === '' ? 'hidden' : 'system';
  if (metadata['is_visually_hidden_from_conversation'] === true) return 'hidden';
  if (role === 'assistant' && typeof message['recipient'] === 'string' && message['recipient'] !== 'all') return 'call';
  if (role === 'user') return 'user';
  if (role === 'assistant') return 'assistant';
  return 'hidden';
}

function seconds(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}

/** One conversation, or the reason it is not one. */
export function parseConversation(raw: unknown): ParsedSession | { reason: string } {
  if (!isRecord(raw)) return { reason: 'not a conversation object' };
  const rawId = typeof raw['id'] === 'string' ? raw['id'] : typeof raw['conversation_id'] === 'string' ? raw['conversation_id'] : null;
  if (!rawId) return { reason: 'a conversation needs an id' };
  const mapping = raw['mapping'];
  if (!isRecord(mapping)) return { reason: `conversation ${rawId} has no mapping` };
  const nodes = new Map<string, RawNode>();
  for (const [key, value] of Object.entries(mapping)) {
    if (!isRecord(value)) return { reason: `conversation ${rawId}: node ${key} is not an object` };
    const id = typeof value['id'] === 'string' ? value['id'] : key;
    const parent = typeof value['parent'] === 'string' ? value['parent'] : null;
    const message = value['message'];
    if (message !== null && message !== undefined && !isRecord(message)) return { reason: `conversation ${rawId}: node ${id} has a message that is not an object` };
    nodes.set(id, { id, parent, message: (message as Record<string, unknown> | null | undefined) ?? null });
  }
  const conversationTime = seconds(raw['create_time']) ?? 0;

  // Times: a node without one takes its parent's (hidden nodes have null).
  const timeOf = new Map<string, number>();
  const time = (id: string, guard = 0): number => {
    const known = timeOf.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id);
    const own = node?.message ? seconds(node.message['create_time']) : null;
    const value = own ?? (node?.parent && guard < 10_000 ? time(node.parent, guard + 1) : conversationTime);
    timeOf.set(id, value);
    return value;
  };

  // The shown node each node stands for: itself, or its nearest shown ancestor.
  const kinds = new Map<string, Kind>();
  for (const node of nodes.values()) kinds.set(node.id, kindOf(node.message));
  const shownFor = new Map<string, string | null>();
  const shown = (id: string | null, guard = 0): string | null => {
    if (id === null || guard > 10_000) return null;
    if (shownFor.has(id)) return shownFor.get(id)!;
    const node = nodes.get(id);
    let answer: string | null;
    if (!node) answer = null;
    else {
      const kind = kinds.get(id)!;
      answer = kind === 'user' || kind === 'assistant' || kind === 'system' || kind === 'call' ? id : shown(node.parent, guard + 1);
    }
    shownFor.set(id, answer);
    return answer;
  };

  // Parents before children, siblings by time (key order is not conversation order: IMPORT.md §3).
  const children = new Map<string | null, RawNode[]>();
  for (const node of nodes.values()) {
    const parent = node.parent !== null && nodes.has(node.parent) ? node.parent : null;
    const list = children.get(parent) ?? [];
    list.push(node);
    children.set(parent, list);
  }
  const ordered: RawNode[] = [];
  const ready = [...(children.get(null) ?? [])];
  const seen = new Set<string>();
  while (ready.length > 0) {
    ready.sort((a, b) => time(a.id) - time(b.id));
    const next = ready.shift()!;
    if (seen.has(next.id)) continue;
    seen.add(next.id);
    ordered.push(next);
    ready.push(...(children.get(next.id) ?? []));
  }

  const turns: ImportNode[][] = [];
  let current: ImportNode[] = [];
  const emitted = new Map<string, ImportNode>();
  const reasoningFor = new Map<string, string[]>();
  let model: string | null = null;
  for (const node of ordered) {
    const kind = kinds.get(node.id)!;
    const message = node.message;
    if (!message || kind === 'hidden') continue;
    const content = isRecord(message['content']) ? message['content'] : {};
    const metadata = isRecord(message['metadata']) ? message['metadata'] : {};
    const { text, images } = textOfContent(content);
    const parentShown = shown(node.parent);
    const parentId = parentShown && emitted.has(nodeIdOf(parentShown)) ? nodeIdOf(parentShown) : null;
    if (typeof metadata['model_slug'] === 'string') model = metadata['model_slug'];
    if (kind === 'reasoning') {
      // Kept with the answer that follows it, never as text of its own.
      const key = parentShown ?? '';
      const list = reasoningFor.get(key) ?? [];
      if (text) list.push(text);
      else if (Array.isArray(content['thoughts'])) list.push(...content['thoughts'].filter(isRecord).map((thought) => String(thought['summary'] ?? thought['content'] ?? '')).filter(Boolean));
      reasoningFor.set(key, list);
      continue;
    }
    if (kind === 'tool') {
      const caller = parentShown ? emitted.get(nodeIdOf(parentShown)) : undefined;
      if (!caller || caller.role !== 'assistant') continue; // a tool message without a call to answer
      const author = isRecord(message['author']) ? message['author'] : {};
      emitted.set(nodeIdOf(node.id), {
        id: nodeIdOf(node.id),
        createdAt: time(node.id),
        role: 'tool',
        content: text,
        parentId: null,
        calledBy: caller.id,
        name: typeof author['name'] === 'string' ? author['name'] : String(caller.metadata?.['recipient'] ?? 'tool'),
        input: caller.metadata?.['toolInput'] ?? null,
        metadata: { contentType: content['content_type'] ?? null },
      });
      current.push(emitted.get(nodeIdOf(node.id))!);
      continue;
    }
    const role = kind === 'user' ? 'user' : kind === 'system' ? 'system' : 'assistant';
    if (role === 'user' && current.length > 0) {
      turns.push(current);
      current = [];
    }
    const nodeMeta: Record<string, unknown> = {};
    if (images.length > 0) nodeMeta['images'] = images;
    if (kind === 'call') {
      nodeMeta['recipient'] = message['recipient'];
      nodeMeta['toolInput'] = text;
    }
    const reasoning = reasoningFor.get(parentShown ?? '');
    if (role === 'assistant' && reasoning && reasoning.length > 0) {
      nodeMeta['reasoning'] = reasoning.join('\n');
      reasoningFor.delete(parentShown ?? '');
    }
    const imported: ImportNode = {
      id: nodeIdOf(node.id),
      createdAt: time(node.id),
      role,
      content: kind === 'call' ? '' : text,
      parentId,
      name: role === 'assistant' && typeof metadata['model_slug'] === 'string' ? metadata['model_slug'] : '',
      metadata: nodeMeta,
    };
    emitted.set(imported.id, imported);
    current.push(imported);
  }
  if (current.length > 0) turns.push(current);

  const currentNode = typeof raw['current_node'] === 'string' ? shown(raw['current_node']) : null;
  let headId = currentNode && emitted.has(nodeIdOf(currentNode)) ? nodeIdOf(currentNode) : null;
  if (!headId) {
    // No current_node: the newest shown node that nothing follows, among those the root reaches. A
    // node whose parent is missing from the mapping is kept, off the branch: it is cut off from
    // the conversation, and as the head it would be shown as the whole of it.
    const rooted = new Set<string>();
    const reach = [...nodes.values()].filter((node) => node.parent === null);
    while (reach.length > 0) {
      const node = reach.pop()!;
      if (rooted.has(nodeIdOf(node.id))) continue;
      rooted.add(nodeIdOf(node.id));
      reach.push(...(children.get(node.id) ?? []));
    }
    const followed = new Set([...emitted.values()].map((node) => node.parentId));
    const leaves = [...emitted.values()].filter((node) => node.role !== 'tool' && !followed.has(node.id));
    const reachable = leaves.filter((node) => rooted.has(node.id));
    headId = (reachable.length > 0 ? reachable : leaves).sort((a, b) => a.createdAt - b.createdAt).pop()?.id ?? null;
  }
  const meta: Record<string, unknown> = {};
  if (model ?? raw['default_model_slug']) meta['model'] = model ?? raw['default_model_slug'];
  return {
    id: sessionIdOf('chatgpt', rawId),
    source: 'chatgpt',
    title: typeof raw['title'] === 'string' ? raw['title'] : '',
    createdAt: conversationTime || (turns[0]?.[0]?.createdAt ?? 0),
    turns,
    headId,
    meta,
  };
}

export type ChatGptItem = { session: ParsedSession } | { skipped: SkippedLine };

/** Conversations one by one from a conversations.json stream; wrong-shaped entries as skipped. */
export async function* parseChatGpt(chunks: AsyncIterable<Uint8Array>, info: { file: string }): AsyncGenerator<ChatGptItem> {
  for await (const element of arrayElements(chunks)) {
    let value: unknown;
    try {
      value = JSON.parse(element.text);
    } catch (error) {
      yield { skipped: { file: info.file, line: element.index, reason: `not JSON: ${(error as Error).message}` } };
      continue;
    }
    const result = parseConversation(value);
    if ('reason' in result) yield { skipped: { file: info.file, line: element.index, reason: result.reason } };
    else yield { session: result };
  }
}
