'use client';

import Link from 'next/link';
import { useRef, useState, type FormEvent } from 'react';
import { Zip, ZipPassThrough } from 'fflate';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import type { ImportReport } from '@/trpc/types';

/** A session repository inside a picked folder: the folder is an OpenProgram state directory (or its sessions/). */
const STATE_REPO_HEAD = /(?:^|\/)sessions\/(?:projects\/[^/]+\/)?[^/]+\/\.git\/HEAD$/;

interface Picked {
  /** its path inside a picked folder, else its name: the report names it so */
  name: string;
  size: number;
  /** the folder's name, when it is an OpenProgram state directory */
  stateDir?: string;
  /** what is sent: the file itself, or a picked state directory zipped */
  body: () => Promise<Blob>;
}

function fileEntry(file: File, name: string): Picked {
  return { name, size: file.size, body: async () => file };
}

/** A picked state directory as one zip (stored: git objects are compressed already), which the server unpacks and imports whole. */
function stateDirEntry(files: File[]): Picked {
  const top = (files[0]!.webkitRelativePath || files[0]!.name).split('/')[0]!;
  return {
    name: `${top}.zip`,
    stateDir: top,
    size: files.reduce((sum, file) => sum + file.size, 0),
    body: async () => {
      const parts: Uint8Array[] = [];
      const zip = new Zip((error, data) => {
        if (error) throw error;
        parts.push(data);
      });
      for (const file of files) {
        const entry = new ZipPassThrough(file.webkitRelativePath || file.name);
        zip.add(entry);
        entry.push(new Uint8Array(await file.arrayBuffer()), true);
      }
      zip.end();
      return new Blob(parts as BlobPart[], { type: 'application/zip' });
    },
  };
}

function emptyReport(): ImportReport {
  return { added: 0, updated: 0, unchanged: 0, alreadyRecorded: 0, ignoredLines: 0, ignoredLineTypes: {}, redacted: 0, skipped: [] };
}

/** One file as the raw body of POST /api/import, streamed from disk by the browser, with upload progress. */
async function upload(picked: Picked, onBytes: (sent: number) => void): Promise<ImportReport> {
  const body = await picked.body();
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `/api/import?name=${encodeURIComponent(picked.name)}`);
    request.setRequestHeader('content-type', 'application/octet-stream');
    request.responseType = 'json';
    request.upload.onprogress = (event) => onBytes(event.loaded);
    request.onload = () => {
      const body = request.response as (ImportReport & { error?: string }) | null;
      if (request.status === 200 && body && typeof body.added === 'number') resolve(body);
      else reject(new Error(body?.error ?? `the server answered ${request.status}`));
    };
    request.onerror = () => reject(new Error('the upload was interrupted; importing again adds only what is missing'));
    request.send(body);
  });
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "3 files", "OpenProgram state directory “x”", or both. */
function describePicked(picked: Picked[]): string {
  const states = picked.filter((entry) => entry.stateDir).map((entry) => `OpenProgram state directory “${entry.stateDir}”`);
  const files = picked.length - states.length;
  return [...states, ...(files > 0 ? [plural(files, 'file')] : [])].join(' and ');
}

function chosenText(picked: Picked[]): string {
  return picked.length === 0 ? 'Nothing chosen yet' : `${describePicked(picked)} chosen`;
}

/** The Import page's form (DESIGN §7 names): files or a folder, one upload per file, one report. */
export function ImportForm() {
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [picked, setPicked] = useState<Picked[]>([]);
  const [running, setRunning] = useState(false);
  const [percent, setPercent] = useState<number | null>(null);
  const [status, setStatus] = useState('');
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | undefined>();

  function choose() {
    const fromFiles = [...(filesInput.current?.files ?? [])].map((file) => fileEntry(file, file.name));
    const folderFiles = [...(folderInput.current?.files ?? [])];
    const isStateDir = folderFiles.some((file) => STATE_REPO_HEAD.test(file.webkitRelativePath || file.name));
    const fromFolder = isStateDir
      ? [stateDirEntry(folderFiles)]
      : // Every file of the folder: the server tells the format by content and names each file it leaves out, with why.
        folderFiles.map((file) => fileEntry(file, file.webkitRelativePath || file.name));
    setPicked([...fromFiles, ...fromFolder]);
    setError(undefined);
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (picked.length === 0) {
      setError('Choose files or a folder to import first.');
      return;
    }
    setRunning(true);
    setError(undefined);
    setReport(null);
    const total = picked.reduce((sum, entry) => sum + entry.size, 0) || 1;
    let done = 0;
    setPercent(0);
    const merged = emptyReport();
    try {
      for (const [index, entry] of picked.entries()) {
        setStatus(`Importing ${entry.name} (${index + 1} of ${picked.length})…`);
        const answer = await upload(entry, (sent) => setPercent(Math.min(99, Math.round(((done + sent) / total) * 100))));
        done += entry.size;
        setPercent(Math.round((done / total) * 100));
        merged.added += answer.added;
        merged.updated += answer.updated;
        merged.unchanged += answer.unchanged;
        merged.alreadyRecorded += answer.alreadyRecorded;
        merged.ignoredLines += answer.ignoredLines;
        for (const [type, count] of Object.entries(answer.ignoredLineTypes)) merged.ignoredLineTypes[type] = (merged.ignoredLineTypes[type] ?? 0) + count;
        merged.redacted += answer.redacted;
        merged.skipped.push(...answer.skipped);
        setReport({ ...merged, ignoredLineTypes: { ...merged.ignoredLineTypes }, skipped: [...merged.skipped] });
      }
      setPercent(100);
      setStatus(`Imported ${describePicked(picked)}.`);
    } catch (failure) {
      setError((failure as Error).message);
      setStatus('');
    } finally {
      setRunning(false);
    }
  }

  return (
    <div className="space-y-4">
      <form onSubmit={onSubmit} className="space-y-4 rounded-lg border border-neutral-200 p-4 dark:border-neutral-800">
        <div className="grid gap-4 sm:grid-cols-2">
          <label className="block space-y-1 text-sm">
            <span className="font-medium">Files to import</span>
            <input
              ref={filesInput}
              type="file"
              multiple
              accept=".jsonl,.json,.zip,application/zip,application/json"
              onChange={choose}
              disabled={running}
              className="block w-full text-sm file:mr-3 file:rounded-md file:border file:border-neutral-300 file:bg-white file:px-3 file:py-1.5 file:text-sm dark:file:border-neutral-700 dark:file:bg-neutral-900 dark:file:text-neutral-100"
            />
            <span className="block text-xs text-neutral-500 dark:text-neutral-400">.jsonl transcripts, conversations.json, an export zip, a session&apos;s JSON export, or a zip of an OpenProgram state directory</span>
          </label>
          <label className="block space-y-1 text-sm">
            <span className="font-medium">Folder to import</span>
            <input
              ref={folderInput}
              type="file"
              multiple
              onChange={choose}
              disabled={running}
              {...{ webkitdirectory: '' }}
              className="block w-full text-sm file:mr-3 file:rounded-md file:border file:border-neutral-300 file:bg-white file:px-3 file:py-1.5 file:text-sm dark:file:border-neutral-700 dark:file:bg-neutral-900 dark:file:text-neutral-100"
            />
            <span className="block text-xs text-neutral-500 dark:text-neutral-400">e.g. ~/.claude/projects, ~/.codex/sessions, or the state folder of OpenProgram, the agent program whose session format Entity Memory keeps (~/.openprogram). Every file is read; the report lists those not imported.</span>
          </label>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={running}>
            Import
          </Button>
          <span className="text-sm text-neutral-600 dark:text-neutral-400">{chosenText(picked)}</span>
        </div>
        {percent !== null ? (
          <div className="space-y-1">
            <div
              role="progressbar"
              aria-label="Import progress"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={percent}
              className="h-2 w-full overflow-hidden rounded bg-neutral-200 dark:bg-neutral-800"
            >
              <div className="h-full bg-blue-600 transition-[width]" style={{ width: `${percent}%` }} />
            </div>
            <p className="text-sm text-neutral-600 dark:text-neutral-400" aria-live="polite">
              {status}
            </p>
          </div>
        ) : null}
        <FormMessage error={error} />
      </form>
      {report ? <ImportReportView report={report} /> : null}
    </div>
  );
}

function ImportReportView({ report }: { report: ImportReport }) {
  return (
    <section aria-label="Import report" className="space-y-3 rounded-lg border border-neutral-200 p-4 dark:border-neutral-800">
      <h2 className="text-lg font-semibold">Import report</h2>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-3">
        {(
          [
            ['Sessions added', report.added],
            ['Sessions updated', report.updated],
            ['Unchanged', report.unchanged],
            ['Already recorded by the proxy', report.alreadyRecorded],
            ['Lines with no conversation', report.ignoredLines],
            ['Secrets redacted', report.redacted],
          ] as const
        ).map(([label, value]) => (
          <div key={label} className="flex justify-between gap-2 border-b border-neutral-100 py-1 dark:border-neutral-800">
            <dt className="text-neutral-600 dark:text-neutral-400">{label}</dt>
            <dd className="font-medium tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
      {report.ignoredLines > 0 ? <IgnoredLines types={report.ignoredLineTypes} /> : null}
      {report.skipped.length > 0 ? (
        <div className="space-y-1">
          <h3 className="text-sm font-semibold">Left out ({report.skipped.length})</h3>
          <ul className="max-h-64 space-y-1 overflow-auto text-sm">
            {report.skipped.map((entry, index) => (
              <li key={`${entry.file}:${entry.line}:${index}`} className="break-words">
                <code className="text-xs">
                  {entry.file}
                  {entry.line > 0 ? `:${entry.line}` : ''}
                </code>{' '}
                <span className="text-neutral-600 dark:text-neutral-400">{entry.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p className="text-sm text-neutral-600 dark:text-neutral-400">Nothing was left out.</p>
      )}
      {report.added + report.updated > 0 ? (
        <p className="text-sm">
          The sessions are in the sidebar and on the{' '}
          <Link href="/chats" className="text-blue-700 underline dark:text-blue-400">
            Chats page
          </Link>
          .
        </p>
      ) : null}
    </section>
  );
}

/** The ignored lines by type: the agent's own bookkeeping, which holds no message of the conversation. */
function IgnoredLines({ types }: { types: Record<string, number> }) {
  const entries = Object.entries(types).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return (
    <p className="text-sm text-neutral-600 dark:text-neutral-400">
      Lines with no conversation, left out: {entries.map(([type, count], index) => (
        <span key={type}>
          {index > 0 ? ', ' : ''}
          <code className="text-xs">{type}</code> ({count})
        </span>
      ))}
      . The agent writes these for itself (file snapshots, queue and progress records); they hold no message.
    </p>
  );
}
