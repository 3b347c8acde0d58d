import type { ImportNode } from '../store/index.js';
import { nodeIdOf, sessionIdOf } from './ids.js';
import { isoSeconds, isRecord, parseObjectLine } from './lines.js';
import { NotThisFormatError, type NumberedLine, type ParsedFile, type ParsedSession, type SkippedLine } from './types.js';
import { claudeCodeUsage } from './claude-code-usage.js';

/**
 * Claude Code transcripts (`~/.claude/projects/<slug>/<sessionId>.jsonl`, IMPORT.md §1):
 * uuid/parentUuid is the DAG (a rewind is a fork), compaction is joined through
 * logicalParentUuid, the content blocks of one API response (one message.id) are one assistant
 * node, tool_use blocks become tool nodes filled by their tool_result lines, and a sub-agent's
 * file (`agent-<id>.jsonl`) is its own session linked both ways with the Task call.
 */

/** Lines that carry a uuid and take part in the chain. */
const CHAIN_TYPES = new Set(['user', 'assistant', 'system', 'progress', 'attachment']);
/** Lines without a uuid that we know and use or deliberately pass over. */
const META_TYPES = new Set(['summary', 'file-history-snapshot', 'queue-operation', 'custom-title', 'ai-title', 'last-prompt', 'agent-name', 'permission-mode', 'mode', 'pr-link']);

interface ChainLine {
  line: number;
  uuid: string;
  parentUuid: string | null;
  logicalParentUuid: string | null;
  type: string;
  subtype: string;
  time: number;
  raw: Record<string, unknown>;
}

interface ToolResult {
  content: unknown;
  isError: boolean;
  time: number;
  line: number;
  agentId: string | null;
}

function shapeError(record: Record<string, unknown>): string | null {
  const type = record['type'];
  if (typeof record['uuid'] !== 'string' || record['uuid'] === '') return `a ${String(type)} line needs a uuid`;
  const parent = record['parentUuid'];
  if (parent !== undefined && parent !== null && typeof parent !== 'string') return 'parentUuid must be a string or null';
  if (type === 'user' || type === 'assistant') {
    const message = record['message'];
    if (!isRecord(message)) return `${type === 'assistant' ? 'an' : 'a'} ${type} line needs a message object`;
    const content = message['content'];
    if (type === 'user' && typeof content !== 'string' && !Array.isArray(content)) return 'a user message needs string or array content';
    if (type === 'assistant' && !Array.isArray(content) && typeof content !== 'string') return 'an assistant message needs array content';
  }
  return null;
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function textOfBlocks(blocks: Record<string, unknown>[]): string {
  return blocks
    .filter((block) => block['type'] === 'text' && typeof block['text'] === 'string')
    .map((block) => block['text'] as string)
    .join('\n\n');
}

/** A tool_result's content as text where it is text (the common case), else as it is. */
function resultContent(content: unknown): unknown {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const blocks = content.filter(isRecord);
    if (blocks.every((block) => block['type'] === 'text')) return textOfBlocks(blocks);
    return blocks.map((block) => (block['type'] === 'image' ? { type: 'image', omitted: true } : block));
  }
  return content ?? null;
}

function isHumanPrompt(line: ChainLine): boolean {
  if (line.type !== 'user' || line.raw['isMeta'] === true) return false;
  const blocks = blocksOf((line.raw['message'] as Record<string, unknown>)['content']);
  return !blocks.some((block) => block['type'] === 'tool_result');
}

export interface ClaudeCodeFileInfo {
  /** the file's name as given (reports name it) */
  file: string;
}

/** Parse one transcript file (a main session or a sub-agent's). */
export async function parseClaudeCode(lines: AsyncIterable<NumberedLine>, info: ClaudeCodeFileInfo): Promise<ParsedFile> {
  const skipped: SkippedLine[] = [];
  let ignoredLines = 0;
  const ignoredLineTypes: Record<string, number> = {};
  let sawFirst = false;
  const chain: ChainLine[] = [];
  const byUuid = new Map<string, ChainLine>();
  let sessionId: string | null = null;
  let agentId: string | null = null;
  let summaryTitle = '';
  let customTitle = '';
  let aiTitle = '';
  let cwd: string | null = null;
  let gitBranch: string | null = null;
  let version: string | null = null;
  let sidechain = false;

  for await (const { line, text } of lines) {
    if (text.trim() === '') continue;
    const parsed = parseObjectLine(text);
    if ('error' in parsed) {
      if (!sawFirst) throw new NotThisFormatError(`not a Claude Code transcript: line ${line} is ${parsed.error}`);
      skipped.push({ file: info.file, line, reason: parsed.error });
      continue;
    }
    const record = parsed.value;
    const type = record['type'];
    if (typeof type !== 'string') {
      if (!sawFirst) throw new NotThisFormatError(`not a Claude Code transcript: line ${line} has no type`);
      skipped.push({ file: info.file, line, reason: 'no type' });
      continue;
    }
    sawFirst = true;
    if (META_TYPES.has(type)) {
      if (type === 'summary' && typeof record['summary'] === 'string') summaryTitle = record['summary'];
      if (type === 'custom-title' && typeof record['customTitle'] === 'string') customTitle = record['customTitle'];
      if (type === 'ai-title' && typeof record['aiTitle'] === 'string') aiTitle = record['aiTitle'];
      continue;
    }
    if (!CHAIN_TYPES.has(type)) {
      ignoredLines++;
      ignoredLineTypes[type] = (ignoredLineTypes[type] ?? 0) + 1;
      continue;
    }
    const problem = shapeError(record);
    if (problem) {
      skipped.push({ file: info.file, line, reason: problem });
      continue;
    }
    const uuid = record['uuid'] as string;
    // A resumed session repeats earlier lines with the same uuids: the first one counts.
    if (byUuid.has(uuid)) continue;
    if (typeof record['sessionId'] === 'string' && !sessionId) sessionId = record['sessionId'];
    if (typeof record['agentId'] === 'string' && record['isSidechain'] === true) agentId ??= record['agentId'];
    // A sub-agent's file starts on the side chain; a main file may hold a few such lines itself.
    if (chain.length === 0 && record['isSidechain'] === true) sidechain = true;
    if (typeof record['cwd'] === 'string') cwd ??= record['cwd'];
    if (typeof record['gitBranch'] === 'string' && record['gitBranch'] !== '') gitBranch ??= record['gitBranch'];
    if (typeof record['version'] === 'string') version ??= record['version'];
    const entry: ChainLine = {
      line,
      uuid,
      parentUuid: typeof record['parentUuid'] === 'string' ? record['parentUuid'] : null,
      logicalParentUuid: typeof record['logicalParentUuid'] === 'string' ? record['logicalParentUuid'] : null,
      type,
      subtype: typeof record['subtype'] === 'string' ? record['subtype'] : '',
      time: isoSeconds(record['timestamp']) ?? 0,
      raw: record,
    };
    chain.push(entry);
    byUuid.set(uuid, entry);
  }
  if (!sawFirst) throw new NotThisFormatError('not a Claude Code transcript: the file is empty');
  if (chain.length === 0) return { sessions: [], ignoredLines, ignoredLineTypes, skipped };

  const fileAgent = /(?:^|\/)agent-([A-Za-z0-9_-]+)\.jsonl$/.exec(info.file)?.[1] ?? null;
  const baseId = sessionId ?? /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(info.file)?.[1] ?? info.file.replace(/^.*\/|\.jsonl$/g, '');
  const subAgent = sidechain ? (agentId ?? fileAgent) : null;
  const id = subAgent ? sessionIdOf('cc', `${baseId}-agent-${subAgent}`) : sessionIdOf('cc', baseId);

  // Fill times a line lacks from its parent, so every node and commit has one.
  let lastTime = chain.find((entry) => entry.time > 0)?.time ?? 0;
  for (const entry of chain) {
    if (entry.time > 0) lastTime = entry.time;
    else entry.time = lastTime;
  }

  // Tool results by tool_use id, with the line that brought them.
  const results = new Map<string, ToolResult>();
  for (const entry of chain) {
    if (entry.type !== 'user') continue;
    for (const block of blocksOf((entry.raw['message'] as Record<string, unknown>)['content'])) {
      if (block['type'] !== 'tool_result' || typeof block['tool_use_id'] !== 'string') continue;
      const sidecar = entry.raw['toolUseResult'];
      results.set(block['tool_use_id'], {
        content: resultContent(block['content']),
        isError: block['is_error'] === true,
        time: entry.time,
        line: entry.line,
        agentId: isRecord(sidecar) && typeof sidecar['agentId'] === 'string' ? sidecar['agentId'] : null,
      });
    }
  }

  // Which node each uuid stands for: its own, its API response's, or (for lines that are no
  // message) the one it follows.
  const groupOf = new Map<string, ChainLine>(); // message.id → first line
  const resolved = new Map<string, string | null>();
  const resolve = (uuid: string | null, depth = 0): string | null => {
    if (uuid === null) return null;
    if (resolved.has(uuid)) return resolved.get(uuid)!;
    const entry = byUuid.get(uuid);
    if (!entry || depth > 100_000) return null;
    let answer: string | null;
    if (entry.type === 'assistant') {
      const messageId = (entry.raw['message'] as Record<string, unknown>)['id'];
      const first = typeof messageId === 'string' ? groupOf.get(messageId) : undefined;
      answer = first ? nodeIdOf(first.uuid) : nodeIdOf(entry.uuid);
    } else if (isHumanPrompt(entry) || (entry.type === 'user' && entry.raw['isCompactSummary'] === true)) {
      answer = nodeIdOf(entry.uuid);
    } else if (entry.type === 'system' && entry.subtype === 'compact_boundary' && entry.parentUuid === null) {
      answer = resolve(entry.logicalParentUuid, depth + 1);
    } else {
      answer = resolve(entry.parentUuid, depth + 1);
    }
    resolved.set(uuid, answer);
    return answer;
  };
  for (const entry of chain) {
    if (entry.type !== 'assistant') continue;
    const messageId = (entry.raw['message'] as Record<string, unknown>)['id'];
    if (typeof messageId === 'string' && !groupOf.has(messageId)) groupOf.set(messageId, entry);
  }

  // Nodes in file order; a human prompt starts a turn.
  const turns: ImportNode[][] = [];
  let current: ImportNode[] = [];
  const emitted = new Map<string, ImportNode>();
  const pendingTools: { node: ImportNode; afterLine: number }[] = [];
  const emit = (node: ImportNode): void => {
    emitted.set(node.id, node);
    current.push(node);
  };
  const parentFor = (entry: ChainLine, metadata: Record<string, unknown>): string | null => {
    const start = entry.type === 'system' ? entry.logicalParentUuid : entry.parentUuid;
    const parent = entry.raw['isCompactSummary'] === true && entry.parentUuid ? resolve(entry.parentUuid) : resolve(start);
    if (start !== null && parent === null && !byUuid.has(start)) metadata['missingParent'] = start;
    return parent !== null && emitted.has(parent) ? parent : null;
  };
  let model: string | null = null;

  for (const entry of chain) {
    const message = isRecord(entry.raw['message']) ? entry.raw['message'] : {};
    if (entry.type === 'user' && (isHumanPrompt(entry) || entry.raw['isCompactSummary'] === true)) {
      const blocks = blocksOf(message['content']);
      const images = blocks.filter((block) => block['type'] === 'image' || block['type'] === 'document').length;
      const metadata: Record<string, unknown> = { uuid: entry.uuid };
      if (images > 0) metadata['omittedAttachments'] = images;
      const compact = entry.raw['isCompactSummary'] === true;
      if (compact) metadata['compactSummary'] = true;
      const parentId = parentFor(entry, metadata);
      if (!compact && current.length > 0) {
        turns.push(current);
        current = [];
      }
      emit({ id: nodeIdOf(entry.uuid), createdAt: entry.time, role: compact ? 'system' : 'user', content: textOfBlocks(blocks), parentId, metadata });
    } else if (entry.type === 'assistant') {
      const messageId = typeof message['id'] === 'string' ? message['id'] : null;
      const first = messageId ? groupOf.get(messageId)! : entry;
      const nodeId = nodeIdOf(first.uuid);
      if (typeof message['model'] === 'string' && message['model'] !== '<synthetic>') model = message['model'];
      const blocks = blocksOf(message['content']);
      let node = emitted.get(nodeId);
      if (!node) {
        const metadata: Record<string, unknown> = { uuid: first.uuid };
        if (messageId) metadata['messageId'] = messageId;
        node = { id: nodeId, createdAt: entry.time, role: 'assistant', content: '', parentId: parentFor(first, metadata), name: typeof message['model'] === 'string' ? message['model'] : '', metadata };
        emit(node);
      }
      // The message's lines each carry a snapshot of its usage: the last one stands, counted once.
      const usage = claudeCodeUsage(message['usage'], typeof message['model'] === 'string' ? message['model'] : null, null);
      if (usage) node.metadata!['usage'] = usage;
      const text = textOfBlocks(blocks);
      if (text) node.content = node.content ? `${node.content as string}\n\n${text}` : text;
      const thinking = blocks.filter((block) => block['type'] === 'thinking' && typeof block['thinking'] === 'string').map((block) => block['thinking'] as string);
      if (thinking.length > 0) node.metadata!['thinking'] = [...((node.metadata!['thinking'] as string[] | undefined) ?? []), ...thinking].join('\n\n');
      for (const block of blocks) {
        if (block['type'] !== 'tool_use' || typeof block['id'] !== 'string') continue;
        const result = results.get(block['id']);
        const metadata: Record<string, unknown> = { tool_call_id: block['id'] };
        const tool: ImportNode = {
          id: nodeIdOf(block['id']),
          createdAt: result?.time ?? entry.time,
          role: 'tool',
          content: result ? result.content : null,
          parentId: null,
          calledBy: nodeId,
          name: typeof block['name'] === 'string' ? block['name'] : 'tool',
          input: block['input'] ?? null,
          metadata,
        };
        // The wire's name, as the proxy records it (toolCallFailed reads both).
        if (result?.isError) metadata['is_error'] = true;
        if (result?.agentId) metadata['subagentSessionId'] = sessionIdOf('cc', `${baseId}-agent-${result.agentId}`);
        pendingTools.push({ node: tool, afterLine: result ? result.line : Number.POSITIVE_INFINITY });
      }
    }
    // A tool node goes in where its result came (it is written once, with the result).
    for (let i = 0; i < pendingTools.length; i++) {
      const pending = pendingTools[i]!;
      if (pending.afterLine <= entry.line && !emitted.has(pending.node.id)) {
        emit(pending.node);
        pendingTools.splice(i--, 1);
      }
    }
  }
  // A call with no result: final only when the conversation went on past it (else one may still come).
  const lastLine = chain[chain.length - 1]!.line;
  const lineOfNode = new Map(chain.map((entry) => [nodeIdOf(entry.uuid), entry.line]));
  for (const pending of pendingTools) {
    const callerLine = lineOfNode.get(pending.node.calledBy ?? '');
    if (callerLine !== undefined && callerLine < lastLine && !emitted.has(pending.node.id)) {
      pending.node.metadata!['noResult'] = true;
      emit(pending.node);
    }
  }
  if (current.length > 0) turns.push(current);

  // The current branch: from the last line with a uuid (IMPORT.md §1, rule 4).
  const headId = resolve(chain[chain.length - 1]!.uuid);
  const meta: Record<string, unknown> = {};
  if (cwd) meta['work_dir'] = cwd;
  if (gitBranch) meta['git_branch'] = gitBranch;
  if (version) meta['claude_code_version'] = version;
  if (model) meta['model'] = model;
  if (subAgent) {
    meta['parent_session_id'] = sessionIdOf('cc', baseId);
    meta['agent_id_of_source'] = subAgent;
  }
  const session: ParsedSession = {
    id,
    source: 'claude-code',
    title: customTitle || summaryTitle || aiTitle,
    createdAt: chain[0]!.time,
    turns,
    headId: headId && emitted.has(headId) ? headId : null,
    meta,
  };
  return { sessions: [session], ignoredLines, ignoredLineTypes, skipped };
}
