import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import type { ImportSessionInput, ImportSessionResult } from '../store/index.js';
import { isDiskFull } from '../fs/disk-full.js';
import { detectFormat, sampleOf, unknownFormatReason, type FileJob } from './formats.js';
import { TruncatedArrayError } from './json-array.js';
import { ZipLimitError } from './zip-limits.js';
import { importStateDir, looksLikeStateDir, type StateDirTarget } from './openprogram.js';
import { zipStateDir } from './state-zip.js';
import { emptyReport, mergeReports, NotThisFormatError, type ImportReport } from './types.js';

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
        // Every file: one no format accepts is listed in the report with why, never passed over in silence.
        else if (entry.isFile()) inputs.push(fileInput(full, relative(resolve(root, '..'), full), (await stat(full)).size));
      }
    };
    await walk(root);
  }
  return inputs;
}

function fileInput(path: string, name: string, size: number): ImportInput {
  return { name, path, size, open: () => createReadStream(path, { highWaterMark: 256 * 1024 }) };
}

/**
 * Import one file's bytes, its format told by its content (formats.ts): each session through
 * the target as it is parsed; what is wrong is reported, never thrown.
 */
export async function importFile(target: ImportTarget, name: string, chunks: AsyncIterable<Uint8Array>, onSession?: () => void): Promise<ImportReport> {
  const report = emptyReport();
  const job: FileJob = {
    report,
    async apply(session, file) {
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
    },
    importStateDir: target.importStateSession
      ? (dir, stateName) => importStateDir({ importStateSession: target.importStateSession!.bind(target) }, dir, { name: stateName, onSession, confined: true })
      : null,
  };
  try {
    const { sample, replay } = await sampleOf(name, chunks);
    const rule = detectFormat(sample);
    if (rule) await rule.parse(job, name, replay);
    else {
      report.skipped.push({ file: name, line: 0, reason: unknownFormatReason(sample) });
      // Read to the end: an upload answered before its body is read may be cut off as an error.
      for await (const _chunk of replay);
    }
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
