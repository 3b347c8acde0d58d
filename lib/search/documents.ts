/**
 * What of a session the index holds, one document each: the session itself (its title)
 * and every node (user, assistant, system messages; tool calls with their arguments and results,
 * marked as `tool`). A document names the conversation message a hit opens at: the node itself,
 * or for a tool node the assistant message that called it.
 */
import type { Message, SessionRow } from '../store/index.js';

export type DocumentKind = 'title' | 'user' | 'assistant' | 'system' | 'tool' | 'note';

export interface SearchDocument {
  sessionId: string;
  /** '' for the session's own document */
  nodeId: string;
  /** the message a hit opens at; null for the session document and tool records without a caller */
  anchorId: string | null;
  kind: DocumentKind;
  text: string;
}

/**
 * Text beyond this is not indexed: the trigram index costs about three times the text it holds,
 * and a many-megabyte tool result would outweigh the whole conversation around it.
 */
export const MAX_DOCUMENT_CHARS = 200_000;

function clip(text: string): string {
  if (text.length <= MAX_DOCUMENT_CHARS) return text;
  const code = text.charCodeAt(MAX_DOCUMENT_CHARS - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_DOCUMENT_CHARS - 1 : MAX_DOCUMENT_CHARS);
}

function argumentsText(input: unknown): string {
  if (input === null || input === undefined) return '';
  return typeof input === 'string' ? input : JSON.stringify(input);
}

export function nodeDocument(sessionId: string, message: Message): SearchDocument {
  if (message.role === 'tool') {
    const call = [message.name, argumentsText(message.input)].filter(Boolean).join(' ');
    return { sessionId, nodeId: message.id, anchorId: message.calledBy, kind: 'tool', text: clip([call, message.content].filter(Boolean).join('\n')) };
  }
  return { sessionId, nodeId: message.id, anchorId: message.id, kind: message.role, text: clip(message.content) };
}

/** A note (DESIGN §16): its own document, opening at its message (null: the session's note). */
export function noteDocument(sessionId: string, note: { messageId: string | null; text: string }): SearchDocument {
  return { sessionId, nodeId: `note:${note.messageId ?? ''}`, anchorId: note.messageId, kind: 'note', text: clip(note.text) };
}

/**
 * The session's document: its title, or null while it has none. The preview is not repeated here:
 * it is the start of the latest user message, which is indexed (and found) as that message.
 */
export function sessionDocument(row: Pick<SessionRow, 'id' | 'title'>): SearchDocument | null {
  const text = row.title.trim();
  return text ? { sessionId: row.id, nodeId: '', anchorId: null, kind: 'title', text: clip(text) } : null;
}
