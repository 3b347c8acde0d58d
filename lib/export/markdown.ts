import { reasoningOf, toolCallFailed, type BranchMessage, type Message, type SessionDetail } from '../store/index.js';
import { belowTurnHeadings } from './content-headings.js';
import type { ExportSource } from './source.js';

/** Past this a Markdown export is refused (413), never cut: JSON or the bundle carry any size. */
export const MAX_MARKDOWN_BYTES = 32 * 1024 * 1024;

/**
 * OPENPROGRAM_EXPORT_MARKDOWN_MAX_BYTES, a whole number of bytes ≥ 1,024; anything else is the
 * default. A server with little memory lowers it (the document is measured, then written, from
 * the session in memory); the e2e lowers it to reach the 413 without 32 MB of messages.
 */
export function markdownLimitFromEnv(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env['OPENPROGRAM_EXPORT_MARKDOWN_MAX_BYTES']);
  return Number.isSafeInteger(value) && value >= 1024 ? value : MAX_MARKDOWN_BYTES;
}

/** A size as a person reads it: whole MB from 1 MiB on, whole KB from 1 KiB, else bytes (never "0.004 MB"). */
function sizeText(bytes: number, round: (value: number) => number): string {
  if (bytes >= 1024 * 1024) return `${round(bytes / 1024 / 1024)} MB`;
  return bytes >= 1024 ? `${round(bytes / 1024)} KB` : `${bytes} bytes`;
}

export class ExportTooLargeError extends Error {
  constructor(readonly bytes: number, readonly limit: number) {
    // The size is rounded up and the limit down, so the two never read as equal.
    super(`the Markdown export would be ${sizeText(bytes, Math.ceil)}, more than the ${sizeText(limit, Math.floor)} limit: export as JSON or as a git bundle`);
    this.name = 'ExportTooLargeError';
  }
}

export interface MarkdownOptions {
  /** tool calls and their results (default on) */
  toolCalls: boolean;
  /** the reasoning of assistant messages, whichever way they came in (`reasoningOf`; default off) */
  reasoning: boolean;
  /** where an attachment of this session is downloaded */
  attachmentUrl: (sessionId: string, file: string) => string;
  limitBytes?: number;
}

const ROLE_LABEL: Record<Message['role'], string> = { user: 'User', assistant: 'Assistant', tool: 'Tool', system: 'System' };

/** A fence longer than any backtick run inside, so no content can close it early. */
function fenced(text: string, info = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}\n`;
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** Link text and destination that no file name can break out of. */
function link(label: string, url: string): string {
  return `[${label.replace(/[[\]\\]/g, '\\$&').replace(/\n/g, ' ')}](<${url.replace(/[<>\s]/g, encodeURIComponent)}>)`;
}

/** `metadata.attachments` as the upload answers them (`{id, name}`) or as stored names/paths. */
export function attachmentFiles(metadata: Record<string, unknown>): Array<{ file: string; label: string }> {
  const listed = metadata['attachments'];
  if (!Array.isArray(listed)) return [];
  const out: Array<{ file: string; label: string }> = [];
  for (const item of listed) {
    const record = typeof item === 'string' ? { id: item } : item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    const ref = [record['id'], record['path'], record['name']].find((v): v is string => typeof v === 'string' && v !== '');
    const file = ref?.split(/[/\\]/).pop() ?? '';
    if (!file || file === '.' || file === '..' || out.some((a) => a.file === file)) continue;
    out.push({ file, label: typeof record['name'] === 'string' && record['name'] ? record['name'] : file });
  }
  return out;
}

function toolCallPart(call: Message): string {
  const input = call.input === null || call.input === undefined ? '' : typeof call.input === 'string' ? call.input : JSON.stringify(call.input, null, 2);
  const result = toolCallFailed(call.metadata) ? 'Result (an error):' : 'Result:';
  return `**Tool call \`${call.name.replace(/`/g, "'") || 'tool'}\`**\n\n${input ? fenced(input, 'json') : ''}\n${result}\n\n${fenced(call.content)}\n`;
}

/** A note (DESIGN §16) as a quoted block under what it is on. */
function notePart(text: string): string {
  return `> **Note**\n>\n${belowTurnHeadings(text).split('\n').map((line) => `> ${line}`).join('\n')}\n\n`;
}

function messagePart(sessionId: string, message: BranchMessage, options: MarkdownOptions, note?: string): string {
  let out = `## ${ROLE_LABEL[message.role]} · ${isoTime(message.createdAt)}\n\n`;
  const reasoning = options.reasoning ? reasoningOf(message.metadata) : null;
  if (reasoning) {
    out += `> **Reasoning**\n>\n${belowTurnHeadings(reasoning).split('\n').map((line) => `> ${line}`).join('\n')}\n\n`;
  }
  if (message.content) out += `${belowTurnHeadings(message.content)}\n\n`;
  const files = attachmentFiles(message.metadata);
  if (files.length > 0) out += `Attachments: ${files.map((a) => link(a.label, options.attachmentUrl(sessionId, a.file))).join(', ')}\n\n`;
  if (options.toolCalls) for (const call of message.toolCalls) out += `${toolCallPart(call)}\n`;
  if (note) out += notePart(note);
  return out;
}

/** The document, a message at a time. */
export function* markdownParts(
  detail: SessionDetail,
  branch: BranchMessage[],
  options: MarkdownOptions,
  now = Date.now(),
  notes: ReadonlyMap<string | null, string> = new Map(),
): Generator<string> {
  yield `# ${detail.title.replace(/[\r\n]+/g, ' ') || 'Untitled session'}\n\n`;
  yield `- Session: \`${detail.id}\`\n- Exported: ${isoTime(now)}\n- Messages on this branch: ${branch.length}\n\n`;
  const own = notes.get(null);
  if (own) yield notePart(own);
  yield '---\n\n';
  for (const message of branch) yield messagePart(detail.id, message, options, notes.get(message.id));
}

/**
 * The current branch as Markdown. It is measured first (a part at a time, nothing kept) so that
 * an export past the limit is refused before the first byte, not cut off in the middle.
 */
export async function markdownExport(source: ExportSource, sessionId: string, options: MarkdownOptions): Promise<{ bytes: number; parts: () => Generator<string> }> {
  const detail = await source.getSession(sessionId);
  const branch = await source.getBranch(sessionId);
  const notes = new Map((source.listNotes ? await source.listNotes(sessionId) : []).map((note) => [note.messageId, note.text] as const));
  const now = Date.now();
  const limit = options.limitBytes ?? MAX_MARKDOWN_BYTES;
  let bytes = 0;
  for (const part of markdownParts(detail, branch, options, now, notes)) {
    bytes += Buffer.byteLength(part);
    if (bytes > limit) throw new ExportTooLargeError(bytes, limit);
  }
  return { bytes, parts: () => markdownParts(detail, branch, options, now, notes) };
}
