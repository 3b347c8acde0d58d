import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportSessionInput } from '../store/index.js';
import { parseChatGpt, type ChatGptItem } from './chatgpt.js';
import { parseClaudeCode } from './claude-code.js';
import { parseCodex } from './codex.js';
import { TruncatedArrayError } from './json-array.js';
import { linesOf, MAX_LINE_BYTES, parseObjectLine } from './lines.js';
import { looksLikeSessionExport, parseSessionExport } from './session-export.js';
import { extractEntry, isStateEntry, stateRootOf } from './state-zip.js';
import { mergeIgnoredTypes, mergeReports, NotThisFormatError, type ImportReport, type NumberedLine, type ParsedFile } from './types.js';
import { zipEntries } from './zip.js';

/**
 * Which format a file is, told by its content (a name helps only where the bytes cannot say):
 * one row per format, tried in order; the first whose `detect` accepts the file parses it
 * (`import-file.ts` holds the parsers' side, `FORMAT_PARSERS`).
 */
export type ImportFormatName = 'no-conversation' | 'zip' | 'session-export' | 'codex' | 'claude-code' | 'chatgpt';

/** The start of a file: its name, its first bytes, and those bytes as text (enough for a first line's keys). */
export interface FileSample {
  name: string;
  bytes: Uint8Array;
  text: string;
}

/** One file being imported: its report, and how a parsed session is written (`import-file.ts` makes it). */
export interface FileJob {
  report: ImportReport;
  /** one session through the target; a refusal goes into the report */
  apply(session: ImportSessionInput, file: string): Promise<void>;
  /** an unpacked OpenProgram state directory imported whole; null when the target cannot take one */
  importStateDir: ((dir: string, name: string) => Promise<ImportReport>) | null;
}

export interface ImportFormatRule {
  format: ImportFormatName;
  detect(sample: FileSample): boolean;
  /** the whole file (the sample's bytes included); what is wrong goes into the job's report */
  parse(job: FileJob, name: string, chunks: AsyncIterable<Uint8Array>): Promise<void>;
}

/** How much of a file detection reads; a first line longer than this is judged by its keys so far. */
export const SAMPLE_BYTES = 64 * 1024;

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CODEX_TYPE_KEY = /"type"\s*:\s*"(?:session_meta|response_item|event_msg|turn_context|compacted)"/;
/** Keys every Claude Code transcript line carries near its start (a summary line: leafUuid). */
const CLAUDE_CODE_KEYS = /"(?:parentUuid|leafUuid|sessionId)"\s*:/;

function firstLine(text: string): { text: string; complete: boolean } {
  const start = text.search(/\S/);
  if (start < 0) return { text: '', complete: false };
  const end = text.indexOf('\n', start);
  return end < 0 ? { text: text.slice(start), complete: false } : { text: text.slice(start, end), complete: true };
}

function isZip(bytes: Uint8Array): boolean {
  // A local file header, or the end record of an empty archive.
  return bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05) && (bytes[3] === 0x04 || bytes[3] === 0x06);
}

function looksLikeCodex(sample: FileSample): boolean {
  const line = firstLine(sample.text);
  if (!line.text.startsWith('{')) return false;
  if (line.complete) {
    const parsed = parseObjectLine(line.text);
    return 'value' in parsed && 'payload' in parsed.value && CODEX_TYPES.has(String(parsed.value['type']));
  }
  return CODEX_TYPE_KEY.test(line.text) && /"payload"\s*:/.test(line.text);
}

function looksLikeClaudeCode(sample: FileSample): boolean {
  if (looksLikeSessionExport(sample.text)) return false;
  // A .jsonl that is no rollout is read as a transcript: its parser names what is wrong with it.
  if (sample.name.endsWith('.jsonl')) return true;
  const line = firstLine(sample.text);
  return line.text.startsWith('{') && CLAUDE_CODE_KEYS.test(line.text) && /"type"\s*:/.test(line.text);
}

async function parseSessionExportFile(job: FileJob, file: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
  const parsed = await parseSessionExport(chunks, { file });
  job.report.skipped.push(...parsed.skipped);
  if (parsed.session.turns.length === 0) job.report.skipped.push({ file, line: 0, reason: `session ${parsed.session.id} has no messages: nothing to import` });
  else await job.apply(parsed.session, file);
}

async function applyChatGpt(job: FileJob, file: string, items: AsyncIterable<ChatGptItem>): Promise<void> {
  for await (const item of items) {
    if ('skipped' in item) job.report.skipped.push(item.skipped);
    else await job.apply(item.session, file);
  }
}

/** A transcript or rollout: one parser reads the lines, its sessions go in one by one. */
function lineFormat(parser: (lines: AsyncIterable<NumberedLine>, info: { file: string }) => Promise<ParsedFile>): ImportFormatRule['parse'] {
  return async (job, name, chunks) => {
    const tooLong = (line: number, bytes: number): void => {
      job.report.skipped.push({ file: name, line, reason: `skipped: the line is ${bytes.toLocaleString('en-US')} bytes, over the ${MAX_LINE_BYTES / 1024 / 1024} MiB a line may have` });
    };
    const parsed = await parser(linesOf(chunks, { onTooLong: tooLong }), { file: name });
    job.report.ignoredLines += parsed.ignoredLines;
    mergeIgnoredTypes(job.report.ignoredLineTypes, parsed.ignoredLineTypes);
    job.report.skipped.push(...parsed.skipped);
    for (const session of parsed.sessions) await job.apply(session, name);
  };
}

const CHATGPT_ENTRY = /(?:^|\/)conversations(?:-\d+)?\.json$/;

/**
 * A zip: a ChatGPT export's conversations, our all-sessions zip (`<id>.json` each, told by its
 * schema field), or an OpenProgram state directory (its sessions/ and projects/).
 */
async function parseZip(job: FileJob, name: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
  const { report } = job;
  let found = 0;
  let unpacked: { dir: string; root: string } | null = null;
  try {
    for await (const entry of zipEntries(chunks, (entryName) => entryName.endsWith('.json') || isStateEntry(entryName))) {
      if (isStateEntry(entry.name)) {
        found++;
        // An OpenProgram state directory: unpacked to a scratch folder, imported once whole.
        unpacked ??= { dir: await mkdtemp(join(tmpdir(), 'em-import-state-')), root: stateRootOf(entry.name) };
        if (!(await extractEntry(unpacked.dir, entry.name, entry.chunks))) report.skipped.push({ file: `${name}:${entry.name}`, line: 0, reason: 'refused: the entry name leaves the archive' });
        continue;
      }
      const file = `${name}:${entry.name}`;
      try {
        if (!CHATGPT_ENTRY.test(entry.name)) {
          const { sample, replay } = await sampleOf(entry.name, entry.chunks, 256);
          if (!looksLikeSessionExport(sample.text)) continue; // the export's other files (user.json …)
          found++;
          await parseSessionExportFile(job, file, replay);
          continue;
        }
        found++;
        await applyChatGpt(job, file, parseChatGpt(entry.chunks, { file }));
      } catch (error) {
        if (!(error instanceof NotThisFormatError || error instanceof TruncatedArrayError)) throw error;
        report.skipped.push({ file, line: 0, reason: error.message });
      }
    }
    if (unpacked) {
      if (!job.importStateDir) report.skipped.push({ file: name, line: 0, reason: 'refused: OpenProgram state directories are not imported here' });
      else {
        mergeReports(report, await job.importStateDir(join(unpacked.dir, unpacked.root), name));
      }
    }
  } finally {
    if (unpacked) await rm(unpacked.dir, { recursive: true, force: true });
  }
  if (found === 0) report.skipped.push({ file: name, line: 0, reason: 'refused: the zip holds no conversations.json (a ChatGPT export), no session export (Entity Memory) and no sessions/ folder (an OpenProgram state directory)' });
}

/** Files that come with a transcript or an export and hold no conversation: named in the report, never parsed. */
const NO_CONVERSATION: readonly { name: RegExp; what: string }[] = [
  { name: /(?:^|\/)subagents\/[^/]+\.meta\.json$/, what: "Claude Code's description of a sub-agent (its transcript, the .jsonl beside it, is what is imported)" },
  { name: /(?:^|\/)export_manifest\.json$/, what: "the list of a ChatGPT export's parts (the conversations-NNN.json files are what is imported)" },
  { name: /(?:^|\/)(?:user|message_feedback|shared_conversations|model_comparisons|chat\.html)(?:\.json)?$/, what: "a ChatGPT export's account or sharing details (its conversations.json is what is imported)" },
];

function noConversation(name: string): string | null {
  return NO_CONVERSATION.find((entry) => entry.name.test(name))?.what ?? null;
}

/** Tried in order: the first whose detect accepts the file parses it. */
export const IMPORT_FORMATS: readonly ImportFormatRule[] = [
  {
    format: 'no-conversation',
    detect: (sample) => noConversation(sample.name) !== null,
    async parse(job, name, chunks) {
      job.report.skipped.push({ file: name, line: 0, reason: `not imported: ${noConversation(name)}, which holds no conversation` });
      for await (const _chunk of chunks); // read to the end, as an upload expects
    },
  },
  { format: 'zip', detect: (sample) => isZip(sample.bytes) || sample.name.endsWith('.zip'), parse: parseZip },
  { format: 'session-export', detect: (sample) => looksLikeSessionExport(sample.text), parse: parseSessionExportFile },
  { format: 'codex', detect: looksLikeCodex, parse: lineFormat(parseCodex) },
  { format: 'claude-code', detect: looksLikeClaudeCode, parse: lineFormat(parseClaudeCode) },
  // A JSON array: a ChatGPT export, whatever its name (its parser refuses one that is not).
  { format: 'chatgpt', detect: (sample) => sample.text.trimStart().startsWith('['), parse: (job, name, chunks) => applyChatGpt(job, name, parseChatGpt(chunks, { file: name })) },
  // A .json object that is none of the above: read as a session export, whose parser says what is missing.
  { format: 'session-export', detect: (sample) => sample.name.endsWith('.json') && sample.text.trimStart().startsWith('{'), parse: parseSessionExportFile },
];

export function detectFormat(sample: FileSample): ImportFormatRule | null {
  return IMPORT_FORMATS.find((rule) => rule.detect(sample)) ?? null;
}

/** The first bytes of a stream as a sample, and the whole stream again. */
export async function sampleOf(name: string, chunks: AsyncIterable<Uint8Array>, limit = SAMPLE_BYTES): Promise<{ sample: FileSample; replay: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const taken: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < limit) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    taken.push(next.value);
    size += next.value.length;
  }
  const replay = (async function* () {
    yield* taken;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  const bytes = Buffer.concat(taken).subarray(0, limit);
  return { sample: { name, bytes, text: new TextDecoder('utf-8').decode(bytes) }, replay };
}

/** What the formats are, for a refusal. */
export const KNOWN_FORMATS_TEXT =
  'Claude Code or Codex .jsonl, a ChatGPT export (conversations.json or its zip), an Entity Memory session export or all-sessions zip, or an OpenProgram state directory';

/** Why a file no rule accepted is left out: the formats, and what it looks like instead. */
export function unknownFormatReason(sample: FileSample): string {
  return `not imported: ${describeContent(sample)}, not a format this imports (${KNOWN_FORMATS_TEXT})`;
}

function describeContent(sample: FileSample): string {
  if (sample.bytes.length === 0) return 'the file is empty';
  // NUL bytes or invalid UTF-8 (U+FFFD from the decoder): not text at all.
  if (sample.bytes.includes(0) || sample.text.slice(0, 4096).includes('\uFFFD')) return 'the file is not text (binary)';
  const start = sample.text.trimStart();
  if (start.startsWith('{')) return 'a JSON object with none of the fields of a transcript, a rollout or a session export';
  return 'plain text, not JSON';
}
