import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import type { ImportSessionInput, ImportSessionResult } from '../store/index.js';
import { isDiskFull } from '../fs/disk-full.js';
import { parseClaudeCode } from './claude-code.js';
import { parseCodex } from './codex.js';
import { parseChatGpt, type ChatGptItem } from './chatgpt.js';
import { TruncatedArrayError } from './json-array.js';
import { linesOf, MAX_LINE_BYTES, parseObjectLine } from './lines.js';
import { zipEntries } from './zip.js';
import { ZipLimitError } from './zip-limits.js';
import { importStateDir, looksLikeStateDir, type StateDirTarget } from './openprogram.js';
import { extractEntry, isStateEntry, stateRootOf, zipStateDir } from './state-zip.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { looksLikeSessionExport, parseSessionExport } from './session-export.js';
import { emptyReport, mergeReports, NotThisFormatError, type ImportReport, type NumberedLine, type ParsedFile, type ParsedSession } from './types.js';

/** What an import writes into: the user's SessionStore (or anything with its importSession). */
export interface ImportTarget extends Partial<StateDirTarget> {
  importSession(input: ImportSessionInput): Promise<ImportSessionResult>;
}

/** One file to import: a name for reports (a relative path) and its bytes. */
export interface ImportInput {
  name: string;
  /** where it is on disk, when it is a file (watch mode compares its size and time) */
  path?: string;
  size: number | null;
  /** an OpenProgram state directory: imported from the folder here, or sent as the zip open() streams */
  stateDir?: string;
  open(): AsyncIterable<Uint8Array>;
}

export interface ImportProgress {
  bytesDone: number;
  bytesTotal: number | null;
  filesDone: number;
  filesTotal: number;
  /** sessions added or updated so far */
  sessions: number;
}

export interface ImportOptions {
  onProgress?: (progress: ImportProgress) => void;
  /** files read at once (their disk writes overlap); default 3 */
  concurrency?: number;
}

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CHATGPT_NAME = /(?:^|\/)conversations(?:-\d+)?\.json$/;

/** Which files a folder walk picks up: transcripts, rollouts, exports. */
export function isImportableName(name: string): boolean {
  return name.endsWith('.jsonl') || CHATGPT_NAME.test(name) || name.endsWith('.zip');
}

/** Files under the given paths (folders walked; symlinks not followed), sorted for a stable order. */
export async function inputsFromPaths(paths: string[]): Promise<ImportInput[]> {
  const inputs: ImportInput[] = [];
  for (const given of paths) {
    const root = resolve(given);
    const info = await stat(root);
    if (info.isDirectory() && looksLikeStateDir(root)) {
      inputs.push({ name: `${basename(root)}.zip`, path: root, stateDir: root, size: null, open: () => zipStateDir(root) });
      continue;
    }
    if (info.isFile()) {
      inputs.push(fileInput(root, basename(root), info.size));
      continue;
    }
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true });
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() && isImportableName(entry.name)) inputs.push(fileInput(full, relative(resolve(root, '..'), full), (await stat(full)).size));
      }
    };
    await walk(root);
  }
  return inputs;
}

function fileInput(path: string, name: string, size: number): ImportInput {
  return { name, path, size, open: () => createReadStream(path, { highWaterMark: 256 * 1024 }) };
}

/** The first lines of a stream, and the rest of it, so a format can be told before parsing. */
async function peekLines(lines: AsyncIterator<NumberedLine>): Promise<{ first: NumberedLine | null; replay: AsyncIterable<NumberedLine> }> {
  const head: NumberedLine[] = [];
  let first: NumberedLine | null = null;
  for (;;) {
    const next = await lines.next();
    if (next.done) break;
    head.push(next.value);
    if (next.value.text.trim() !== '') {
      first = next.value;
      break;
    }
  }
  const replay = (async function* () {
    yield* head;
    for (;;) {
      const next = await lines.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  return { first, replay };
}

/** The first bytes of a stream as text (enough to see a schema field), and the whole stream again. */
async function peekHead(chunks: AsyncIterable<Uint8Array>): Promise<{ head: string; replay: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const taken: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < 256) {
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
  return { head: new TextDecoder('utf-8').decode(Buffer.concat(taken).subarray(0, 256)), replay };
}

function looksLikeCodex(line: NumberedLine | null): boolean {
  if (!line) return false;
  const parsed = parseObjectLine(line.text);
  return 'value' in parsed && 'payload' in parsed.value && CODEX_TYPES.has(String(parsed.value['type']));
}

/**
 * Import one file's bytes (a transcript, a rollout, conversations.json or a zip of an export):
 * each session through the target as it is parsed; what is wrong is reported, never thrown.
 */
export async function importFile(target: ImportTarget, name: string, chunks: AsyncIterable<Uint8Array>, onSession?: () => void): Promise<ImportReport> {
  const report = emptyReport();
  const apply = (session: ParsedSession, file: string): Promise<void> =>
    applyInput({ id: session.id, source: session.source, title: session.title, createdAt: session.createdAt, turns: session.turns, headId: session.headId, meta: session.meta }, file);
  const applyInput = async (session: ImportSessionInput, file: string): Promise<void> => {
    try {
      const result = await target.importSession(session);
      report[result.outcome]++;
      report.redacted += result.redacted;
      if (result.outcome === 'added' || result.outcome === 'updated') onSession?.();
    } catch (error) {
      // A full disk fails every session after this one too: the whole import stops and says so.
      if (isDiskFull(error)) throw error;
      report.skipped.push({ file, line: 0, reason: `session ${session.id} not imported: ${(error as Error).message}` });
    }
  };
  const sessionExport = async (entry: AsyncIterable<Uint8Array>, file: string): Promise<void> => {
    const parsed = await parseSessionExport(entry, { file });
    report.skipped.push(...parsed.skipped);
    if (parsed.session.turns.length === 0) report.skipped.push({ file, line: 0, reason: `session ${parsed.session.id} has no messages: nothing to import` });
    else await applyInput(parsed.session, file);
  };
  const chatgpt = async (items: AsyncIterable<ChatGptItem>, file: string): Promise<void> => {
    for await (const item of items) {
      if ('skipped' in item) report.skipped.push(item.skipped);
      else await apply(item.session, file);
    }
  };
  try {
    if (name.endsWith('.zip')) {
      let found = 0;
      let unpacked: { dir: string; root: string } | null = null;
      try {
        // A ChatGPT export's conversations, our all-sessions zip (`<id>.json` each, told by its
        // schema field), or an OpenProgram state directory (its sessions/ and projects/).
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
            if (!CHATGPT_NAME.test(entry.name)) {
              const { head, replay } = await peekHead(entry.chunks);
              if (!looksLikeSessionExport(head)) continue; // the export's other files (user.json …)
              found++;
              await sessionExport(replay, file);
              continue;
            }
            found++;
            await chatgpt(parseChatGpt(entry.chunks, { file }), file);
          } catch (error) {
            if (!(error instanceof NotThisFormatError || error instanceof TruncatedArrayError)) throw error;
            report.skipped.push({ file, line: 0, reason: error.message });
          }
        }
        if (unpacked) {
          if (!target.importStateSession) report.skipped.push({ file: name, line: 0, reason: 'refused: OpenProgram state directories are not imported here' });
          else mergeReports(report, await importStateDir({ importStateSession: target.importStateSession.bind(target) }, join(unpacked.dir, unpacked.root), { name, onSession, confined: true }));
        }
      } finally {
        if (unpacked) await rm(unpacked.dir, { recursive: true, force: true });
      }
      if (found === 0) report.skipped.push({ file: name, line: 0, reason: 'refused: the zip holds no conversations.json (a ChatGPT export), no session export (Entity Memory) and no sessions/ folder (an OpenProgram state directory)' });
      return report;
    }
    if (name.endsWith('.json')) {
      // An object is one of our session exports (its schema field says which); an array a ChatGPT export.
      const { head, replay } = await peekHead(chunks);
      if (looksLikeSessionExport(head) || head.trimStart().startsWith('{')) await sessionExport(replay, name);
      else await chatgpt(parseChatGpt(replay, { file: name }), name);
      return report;
    }
    if (!name.endsWith('.jsonl')) {
      report.skipped.push({ file: name, line: 0, reason: 'refused: not a format this imports (Claude Code or Codex .jsonl, ChatGPT conversations.json or its zip, an Entity Memory session .json or all-sessions zip)' });
      return report;
    }
    const tooLong = (line: number, bytes: number): void => {
      report.skipped.push({ file: name, line, reason: `skipped: the line is ${bytes.toLocaleString('en-US')} bytes, over the ${MAX_LINE_BYTES / 1024 / 1024} MiB a line may have` });
    };
    const { first, replay } = await peekLines(linesOf(chunks, { onTooLong: tooLong })[Symbol.asyncIterator]());
    const parsed: ParsedFile = looksLikeCodex(first) ? await parseCodex(replay, { file: name }) : await parseClaudeCode(replay, { file: name });
    report.ignoredLines += parsed.ignoredLines;
    report.skipped.push(...parsed.skipped);
    for (const session of parsed.sessions) await apply(session, name);
  } catch (error) {
    if (!(error instanceof NotThisFormatError || error instanceof TruncatedArrayError)) throw error;
    // Refused whole (or cut off): what was complete before a truncation is already in.
    report.skipped.push({ file: name, line: 0, reason: error instanceof NotThisFormatError ? `refused: ${error.message}` : error.message });
  }
  return report;
}

/** Import many files, a few at a time, with progress. */
export async function importInputs(target: ImportTarget, inputs: ImportInput[], options: ImportOptions = {}): Promise<ImportReport> {
  const report = emptyReport();
  const knownSizes = inputs.every((input) => input.size !== null);
  const progress: ImportProgress = {
    bytesDone: 0,
    bytesTotal: knownSizes ? inputs.reduce((sum, input) => sum + (input.size ?? 0), 0) : null,
    filesDone: 0,
    filesTotal: inputs.length,
    sessions: 0,
  };
  const tell = (): void => options.onProgress?.({ ...progress });
  tell();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inputs.length) {
      const input = inputs[next++]!;
      const counted = (async function* () {
        for await (const chunk of input.open()) {
          progress.bytesDone += chunk.length;
          tell();
          yield chunk;
        }
      })();
      const onSession = (): void => {
        progress.sessions++;
        tell();
      };
      let fileReport: ImportReport;
      try {
        fileReport =
          input.stateDir && target.importStateSession
            ? await importStateDir({ importStateSession: target.importStateSession.bind(target) }, input.stateDir, { name: basename(input.stateDir), onSession })
            : await importFile(target, input.name, counted, onSession);
      } catch (error) {
        // The upload API answers 413 for it; among many files it is that file's refusal.
        if (!(error instanceof ZipLimitError)) throw error;
        fileReport = { ...emptyReport(), skipped: [{ file: input.name, line: 0, reason: error.message }] };
      }
      mergeReports(report, fileReport);
      progress.filesDone++;
      tell();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 3, inputs.length)) }, worker));
  report.skipped.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return report;
}
