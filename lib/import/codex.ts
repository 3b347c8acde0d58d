import type { ImportNode } from '../store/index.js';
import { sessionIdOf } from './ids.js';
import { isoSeconds, isRecord, parseObjectLine } from './lines.js';
import { NotThisFormatError, type NumberedLine, type ParsedFile, type SkippedLine } from './types.js';

/**
 * Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`, IMPORT.md §2):
 * a linear thread in file order. Each prompt and reply comes twice (event_msg and response_item)
 * and is kept once; injected context (AGENTS.md, <environment_context>) is left out;
 * thread_rolled_back turns the last turns into a dead branch; tool calls hang off the assistant
 * step that made them. Node ids come from the line numbers, which never change as the file grows.
 */

const ENVELOPE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const TOOL_CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);
const TOOL_OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output']);
const KNOWN_ITEMS = new Set(['message', 'reasoning', ...TOOL_CALLS, ...TOOL_OUTPUTS]);
const HIDDEN_PREFIXES = ['<environment_context>', '<user_instructions>', '# AGENTS.md instructions', '<permissions instructions>'];

interface Entry {
  line: number;
  time: number;
  type: string;
  payload: Record<string, unknown>;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .filter((part) => typeof part['text'] === 'string' && ['input_text', 'output_text', 'text'].includes(String(part['type'])))
    .map((part) => part['text'] as string)
    .join('\n');
}

/** `arguments` and `output` are JSON strings; keep the parsed value where it parses. */
function decoded(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** A tool output as its text (`{output, metadata}` → output), its metadata aside. */
function outputOf(raw: unknown): { content: unknown; metadata: Record<string, unknown> } {
  const value = decoded(raw);
  if (isRecord(value) && typeof value['output'] === 'string') {
    return { content: value['output'], metadata: isRecord(value['metadata']) ? value['metadata'] : {} };
  }
  if (Array.isArray(value)) return { content: textOf(value) || value, metadata: {} };
  return { content: value, metadata: {} };
}

const lineId = (line: number): string => `l${String(line).padStart(6, '0')}`;

export async function parseCodex(lines: AsyncIterable<NumberedLine>, info: { file: string }): Promise<ParsedFile> {
  const skipped: SkippedLine[] = [];
  let ignoredLines = 0;
  const ignoredLineTypes: Record<string, number> = {};
  let sawFirst = false;
  const entries: Entry[] = [];
  let threadId: string | null = null;
  let cwd: string | null = null;
  let cliVersion: string | null = null;
  let model: string | null = null;
  let lastTime = 0;

  for await (const { line, text } of lines) {
    if (text.trim() === '') continue;
    const parsed = parseObjectLine(text);
    if ('error' in parsed) {
      if (!sawFirst) throw new NotThisFormatError(`not a Codex rollout: line ${line} is ${parsed.error}`);
      skipped.push({ file: info.file, line, reason: parsed.error });
      continue;
    }
    const record = parsed.value;
    const type = record['type'];
    if (typeof type !== 'string') {
      if (!sawFirst) throw new NotThisFormatError(`not a Codex rollout: line ${line} has no type`);
      skipped.push({ file: info.file, line, reason: 'no type' });
      continue;
    }
    sawFirst = true;
    if (!ENVELOPE_TYPES.has(type)) {
      ignoredLines++;
      ignoredLineTypes[type] = (ignoredLineTypes[type] ?? 0) + 1;
      continue;
    }
    const payload = record['payload'];
    if (!isRecord(payload)) {
      skipped.push({ file: info.file, line, reason: `a ${type} line needs a payload object` });
      continue;
    }
    const time = isoSeconds(record['timestamp']) ?? lastTime;
    lastTime = time;
    if (type === 'session_meta') {
      if (typeof payload['id'] === 'string') threadId ??= payload['id'];
      if (typeof payload['cwd'] === 'string') cwd ??= payload['cwd'];
      if (typeof payload['cli_version'] === 'string') cliVersion ??= payload['cli_version'];
      continue;
    }
    if (type === 'turn_context') {
      if (typeof payload['model'] === 'string') model = payload['model'];
      continue;
    }
    if (type === 'response_item') {
      const itemType = payload['type'];
      if (typeof itemType !== 'string') {
        skipped.push({ file: info.file, line, reason: 'a response_item needs a type' });
        continue;
      }
      if (!KNOWN_ITEMS.has(itemType)) {
        ignoredLines++;
        ignoredLineTypes[`${type}/${itemType}`] = (ignoredLineTypes[`${type}/${itemType}`] ?? 0) + 1;
        continue;
      }
      if (TOOL_CALLS.has(itemType) && itemType !== 'web_search_call' && typeof payload['call_id'] !== 'string') {
        skipped.push({ file: info.file, line, reason: `a ${itemType} needs a call_id` });
        continue;
      }
      if (itemType === 'message' && typeof payload['role'] !== 'string') {
        skipped.push({ file: info.file, line, reason: 'a message needs a role' });
        continue;
      }
    }
    entries.push({ line, time, type, payload });
  }
  if (!sawFirst) throw new NotThisFormatError('not a Codex rollout: the file is empty');
  const fromName = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(info.file)?.[1] ?? null;
  const rawId = threadId ?? fromName;
  if (!rawId) throw new NotThisFormatError('not a Codex rollout: no session_meta id and no id in the file name');

  // Prompts: the user_message events when the file has them (the response_item copies are then
  // mirrors or injected context); older files have only response_items.
  const userEvents = entries.filter((entry) => entry.type === 'event_msg' && entry.payload['type'] === 'user_message');
  const assistantItemTexts = new Set(
    entries.filter((entry) => entry.type === 'response_item' && entry.payload['type'] === 'message' && entry.payload['role'] === 'assistant').map((entry) => textOf(entry.payload['content'])),
  );

  const turns: ImportNode[][] = [];
  let current: ImportNode[] = [];
  let head: string | null = null;
  /** the assistant step tool calls hang off, until the next message */
  let caller: ImportNode | null = null;
  const prompts: { id: string; parent: string | null }[] = [];
  const calls = new Map<string, ImportNode>();
  let reasoning: string[] = [];
  const emitted = new Set<string>();
  const emit = (node: ImportNode): void => {
    emitted.add(node.id);
    current.push(node);
  };
  const assistantNode = (entry: Entry, content: string, id = lineId(entry.line)): ImportNode => {
    const node: ImportNode = { id, createdAt: entry.time, role: 'assistant', content, parentId: head, name: model ?? '', metadata: {} };
    if (reasoning.length > 0) node.metadata!['reasoning'] = reasoning.join('\n');
    reasoning = [];
    head = node.id;
    emit(node);
    return node;
  };
  const prompt = (entry: Entry, text: string): void => {
    if (current.length > 0) turns.push(current);
    current = [];
    const node: ImportNode = { id: lineId(entry.line), createdAt: entry.time, role: 'user', content: text, parentId: head, metadata: {} };
    prompts.push({ id: node.id, parent: head });
    head = node.id;
    caller = null;
    emit(node);
  };

  for (const entry of entries) {
    const kind = String(entry.payload['type'] ?? '');
    if (entry.type === 'event_msg') {
      if (kind === 'user_message' && typeof entry.payload['message'] === 'string') prompt(entry, entry.payload['message']);
      else if (kind === 'agent_message' && typeof entry.payload['message'] === 'string' && !assistantItemTexts.has(entry.payload['message'])) {
        assistantNode(entry, entry.payload['message']);
        caller = null;
      } else if (kind === 'thread_rolled_back') {
        const count = Number(entry.payload['num_turns']);
        if (Number.isInteger(count) && count > 0) {
          const dropped = prompts.splice(Math.max(0, prompts.length - count));
          // The dropped turns stay as a dead branch; the next prompt forks where the first began.
          if (dropped[0]) head = dropped[0].parent;
          caller = null;
        }
      }
      continue;
    }
    if (entry.type !== 'response_item') continue;
    if (kind === 'message') {
      const role = entry.payload['role'];
      const text = textOf(entry.payload['content']);
      if (role === 'assistant') {
        assistantNode(entry, text);
        caller = null;
      } else if (role === 'user' && userEvents.length === 0 && !HIDDEN_PREFIXES.some((prefix) => text.trimStart().startsWith(prefix))) {
        prompt(entry, text);
      }
      // developer and system items, and mirrored or injected user items, are context: left out
    } else if (kind === 'reasoning') {
      const summary = Array.isArray(entry.payload['summary']) ? entry.payload['summary'].filter(isRecord).map((part) => String(part['text'] ?? '')) : [];
      reasoning.push(...summary.filter(Boolean));
    } else if (TOOL_CALLS.has(kind)) {
      // The model's step that made the calls: an assistant node without text (Codex writes none).
      const step: ImportNode = caller ?? assistantNode(entry, '', `${lineId(entry.line)}-step`);
      caller = step;
      const callId = typeof entry.payload['call_id'] === 'string' ? entry.payload['call_id'] : lineId(entry.line);
      const input = kind === 'function_call' ? decoded(entry.payload['arguments']) : (entry.payload['input'] ?? entry.payload['action'] ?? null);
      const tool: ImportNode = {
        id: lineId(entry.line),
        createdAt: entry.time,
        role: 'tool',
        content: null,
        parentId: null,
        calledBy: step.id,
        name: typeof entry.payload['name'] === 'string' ? entry.payload['name'] : kind === 'local_shell_call' ? 'shell' : kind,
        input,
        metadata: { tool_call_id: callId },
      };
      if (kind === 'web_search_call') {
        tool.content = entry.payload['status'] ?? null;
        emit(tool);
      } else {
        calls.set(callId, tool);
      }
    } else if (TOOL_OUTPUTS.has(kind)) {
      const callId = String(entry.payload['call_id'] ?? '');
      const tool = calls.get(callId);
      if (!tool) {
        skipped.push({ file: info.file, line: entry.line, reason: `output for a call never made (${callId}): left out` });
        continue;
      }
      calls.delete(callId);
      const { content, metadata } = outputOf(entry.payload['output']);
      tool.content = content;
      tool.createdAt = entry.time;
      Object.assign(tool.metadata!, metadata);
      emit(tool);
    }
  }
  // A call whose output never came: final once the thread went on past it.
  const lastLine = entries[entries.length - 1]?.line ?? 0;
  for (const tool of calls.values()) {
    if (Number(tool.id.slice(1)) < lastLine && emitted.has(tool.calledBy ?? '')) {
      tool.metadata!['noResult'] = true;
      emit(tool);
    }
  }
  if (current.length > 0) turns.push(current);
  const meta: Record<string, unknown> = {};
  if (cwd) meta['work_dir'] = cwd;
  if (model) meta['model'] = model;
  if (cliVersion) meta['codex_version'] = cliVersion;
  const firstTime = entries.find((entry) => entry.time > 0)?.time ?? 0;
  skipped.sort((a, b) => a.line - b.line);
  return {
    sessions: [{ id: sessionIdOf('codex', rawId), source: 'codex', title: '', createdAt: firstTime, turns, headId: head, meta }],
    ignoredLines,
    ignoredLineTypes,
    skipped,
  };
}
