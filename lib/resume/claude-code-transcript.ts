import { uuidFrom } from './agent-ids.js';
import { resultText, type ResumeEntry } from './conversation.js';

/** The Claude Code version our transcripts say wrote them (the format of IMPORT.md §1). */
const WRITER_VERSION = '2.1.0';

export interface ClaudeTranscriptOptions {
  /** the new Claude Code session id (a UUID): the file's name and every line's sessionId */
  agentSessionId: string;
  /** the folder Claude Code will run in: its transcripts of that folder live under its slug */
  cwd: string;
}

/** Past this many characters Claude Code cuts the slug and adds a hash of the whole path. */
const MAX_SLUG = 200;

/** Java's String.hashCode, which Claude Code uses for that hash. */
function stringHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) - hash + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * `~/.claude/projects/<slug>/`: Claude Code names a folder's transcripts by its path with every
 * character other than a letter or digit turned into `-` (IMPORT.md §1 [V4]); a long one is cut
 * at 200 characters and followed by `-<the path's hash in base 36>` (as Claude Code 2.1 does).
 */
export function claudeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  return slug.length <= MAX_SLUG ? slug : `${slug.slice(0, MAX_SLUG)}-${Math.abs(stringHash(cwd)).toString(36)}`;
}

type Json = Record<string, unknown>;

/** The content blocks of an assistant message: its text (when any), then its calls. */
function assistantBlocks(entry: Extract<ResumeEntry, { role: 'assistant' }>): Json[] {
  const blocks: Json[] = entry.text !== '' ? [{ type: 'text', text: entry.text }] : [];
  for (const call of entry.calls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
  return blocks;
}

/** An assistant message with neither text nor calls: the API refuses an empty message, so it is left out. */
const isEmptyAssistant = (entry: ResumeEntry): boolean => entry.role === 'assistant' && entry.text === '' && entry.calls.length === 0;

/**
 * The conversation as the Anthropic Messages API takes it, as Claude Code sends a resumed
 * transcript: results of a message's calls in the user message after it. The proxy's reading of
 * these messages is what the resumed run's requests are recognised by.
 */
export function anthropicMessages(entries: readonly ResumeEntry[]): Json[] {
  const messages: Json[] = [];
  for (const entry of entries) {
    if (isEmptyAssistant(entry)) continue;
    if (entry.role === 'user') {
      messages.push({ role: 'user', content: entry.text });
      continue;
    }
    messages.push({ role: 'assistant', content: assistantBlocks(entry) });
    if (entry.calls.length > 0) {
      messages.push({ role: 'user', content: entry.calls.map((call) => ({ type: 'tool_result', tool_use_id: call.id, content: resultText(call), ...(call.isError ? { is_error: true } : {}) })) });
    }
  }
  return messages;
}

/**
 * The branch as a Claude Code transcript (`<agentSessionId>.jsonl`, IMPORT.md §1): one line per
 * message, chained by uuid/parentUuid, tool results as user lines after their calls. The inverse
 * of lib/import/claude-code.ts: that reader gives back these messages.
 */
export function claudeCodeTranscript(entries: readonly ResumeEntry[], options: ClaudeTranscriptOptions): string {
  const lines: string[] = [];
  let parentUuid: string | null = null;
  const base = (uuid: string, createdAt: number): Json => ({
    parentUuid,
    isSidechain: false,
    userType: 'external',
    cwd: options.cwd,
    sessionId: options.agentSessionId,
    version: WRITER_VERSION,
    gitBranch: '',
    uuid,
    timestamp: new Date(createdAt).toISOString(),
  });
  const push = (line: Json): void => {
    lines.push(JSON.stringify(line));
    parentUuid = line['uuid'] as string;
  };
  for (const entry of entries) {
    if (isEmptyAssistant(entry)) continue;
    const uuid = uuidFrom(`${options.agentSessionId}\n${entry.nodeId}`);
    if (entry.role === 'user') {
      push({ ...base(uuid, entry.createdAt), type: 'user', message: { role: 'user', content: entry.text } });
      continue;
    }
    const message = {
      id: `msg_${uuid.replace(/-/g, '')}`,
      type: 'message',
      role: 'assistant',
      model: entry.model || 'unknown',
      content: assistantBlocks(entry),
      stop_reason: entry.calls.length > 0 ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    push({ ...base(uuid, entry.createdAt), type: 'assistant', message, requestId: `req_${uuid.replace(/-/g, '')}` });
    for (const call of entry.calls) {
      const content = [{ type: 'tool_result', tool_use_id: call.id, content: resultText(call), ...(call.isError ? { is_error: true } : {}) }];
      push({ ...base(uuidFrom(`${options.agentSessionId}\n${entry.nodeId}\n${call.id}`), entry.createdAt), type: 'user', message: { role: 'user', content }, toolUseResult: resultText(call) });
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
