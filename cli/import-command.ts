import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import { inputsFromPaths, type ImportInput, type ImportProgress, type ImportReport } from '../lib/import/index.js';
import { CliError, type CliBackend } from './backend.js';
import { untilServerTakesIt } from './server-wait.js';

export interface ImportCommandOutput {
  out(line: string): void;
  err(line: string): void;
}

export interface ImportCommandOptions {
  json: boolean;
  /** draw a progress bar (stderr is a terminal) */
  progressBar: boolean;
  /** keep importing what changes; resolves when `signal` aborts */
  watch: boolean;
  watchIntervalMs?: number;
  signal?: AbortSignal;
}

function summary(report: ImportReport): string[] {
  const lines = [
    `Imported: ${report.added} added, ${report.updated} updated, ${report.unchanged} unchanged, ${report.alreadyRecorded} already recorded by the proxy; ` +
      `${report.ignoredLines} line${report.ignoredLines === 1 ? '' : 's'} with no conversation left out; ${report.redacted} secret${report.redacted === 1 ? '' : 's'} redacted`,
  ];
  const types = Object.entries(report.ignoredLineTypes).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (types.length > 0) {
    lines.push(`Lines left out, by type (the agent's own records: file snapshots, queue and progress; no message): ${types.map(([type, count]) => `${type} ${count}`).join(', ')}`);
  }
  if (report.skipped.length > 0) {
    lines.push(`Skipped ${report.skipped.length}:`);
    for (const entry of report.skipped) lines.push(`  ${entry.file}${entry.line > 0 ? `:${entry.line}` : ''}  ${entry.reason}`);
  }
  return lines;
}

async function inputsOrFail(paths: string[]): Promise<ImportInput[]> {
  for (const path of paths) {
    try {
      await stat(path);
    } catch {
      throw new CliError(`no such file or folder: ${path}`, 'not_found');
    }
  }
  return inputsFromPaths(paths);
}

/** A bar on stderr while it runs; nothing when stderr is no terminal. */
function progressReporter(enabled: boolean): { update(progress: ImportProgress): void; stop(): void } {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: 'Importing [{bar}] {percentage}% | {files} files | {sessions} sessions', stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(progress) {
      const total = progress.bytesTotal ?? progress.filesTotal;
      const done = progress.bytesTotal === null ? progress.filesDone : progress.bytesDone;
      const payload = { files: `${progress.filesDone}/${progress.filesTotal}`, sessions: progress.sessions };
      if (!started) {
        bar.start(Math.max(total, 1), done, payload);
        started = true;
      } else bar.update(done, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/**
 * `import <path>…`: once, with a progress bar and a report (`--json`: one object); `--watch`:
 * then again whenever a file under the paths grows or appears, until interrupted; a server that is
 * stopped, or a user frozen by a move (503 + Retry-After), is waited for and the files sent again.
 */
export async function runImport(backend: CliBackend, paths: string[], options: ImportCommandOptions, output: ImportCommandOutput): Promise<void> {
  if (paths.length === 0) throw new CliError('import needs at least one file or folder\n\nusage: import <path>… [--json] [--watch]', 'bad_input');
  const inputs = await inputsOrFail(paths);
  // A file is imported again when its size or time changed since the last look; a new one at once.
  const seen = new Map<string, string>();
  const changedSinceLastLook = async (): Promise<ImportInput[]> => {
    const changed: ImportInput[] = [];
    for (const input of await inputsFromPaths(paths)) {
      const info = input.path ? await stat(input.path).catch(() => null) : null;
      const signature = info ? `${info.size}:${info.mtimeMs}` : '';
      if (seen.get(input.name) !== signature) changed.push(input);
      seen.set(input.name, signature);
    }
    return changed;
  };
  // The first look before the first import: a line written while it runs is then seen as a change
  // (and imported again, which adds only what is new), never taken for the state already imported.
  if (options.watch) await changedSinceLastLook();
  const bar = progressReporter(options.progressBar && !options.json);
  // --watch runs unattended: a stopped server or a move's freeze is waited out, not the end of it.
  const waiting = { signal: options.signal, onWait: (why: string, ms: number) => output.err(`${why}; trying again in ${Math.ceil(ms / 1000)} s`) };
  let report: ImportReport | null;
  try {
    const first = () => backend.importFiles(inputs, (progress) => bar.update(progress));
    report = options.watch ? await untilServerTakesIt(first, waiting) : await first();
  } finally {
    bar.stop();
  }
  if (!report) return;
  if (options.json) output.out(JSON.stringify(report));
  else for (const line of summary(report)) output.out(line);
  if (!options.watch) return;

  output.err(`Watching ${paths.join(', ')} for new lines (Ctrl-C stops)`);
  const interval = options.watchIntervalMs ?? 1000;
  while (!options.signal?.aborted) {
    // node's own timer takes its abort listener off when it fires: one added per look and never
    // removed passed ten and printed MaxListenersExceededWarning.
    await sleep(interval, undefined, { signal: options.signal }).catch(() => undefined);
    if (options.signal?.aborted) break;
    const changed = await changedSinceLastLook().catch(() => [] as ImportInput[]);
    if (changed.length === 0) continue;
    const again = await untilServerTakesIt(() => backend.importFiles(changed), waiting);
    if (!again) break;
    if (options.json) output.out(JSON.stringify(again));
    else if (again.added + again.updated > 0 || again.skipped.length > 0) for (const line of summary(again)) output.out(`${new Date().toISOString()} ${line}`);
  }
}
