import type { ImportNode } from '../store/index.js';

/** A line (or a ChatGPT entry: its 1-based index) left out, and why; line 0: the whole file. */
export interface SkippedLine {
  file: string;
  line: number;
  reason: string;
}

/** DESIGN §10's report: counts of sessions, except ignoredLines and redacted. */
export interface ImportReport {
  added: number;
  updated: number;
  unchanged: number;
  alreadyRecorded: number;
  ignoredLines: number;
  /** the ignored lines by their type (`file-history-snapshot`: 30, …): bookkeeping of the agent, no conversation */
  ignoredLineTypes: Record<string, number>;
  redacted: number;
  skipped: SkippedLine[];
}

export function emptyReport(): ImportReport {
  return { added: 0, updated: 0, unchanged: 0, alreadyRecorded: 0, ignoredLines: 0, ignoredLineTypes: {}, redacted: 0, skipped: [] };
}

export function mergeIgnoredTypes(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [type, count] of Object.entries(from)) into[type] = (into[type] ?? 0) + count;
}

export function mergeReports(into: ImportReport, from: ImportReport): ImportReport {
  into.added += from.added;
  into.updated += from.updated;
  into.unchanged += from.unchanged;
  into.alreadyRecorded += from.alreadyRecorded;
  into.ignoredLines += from.ignoredLines;
  mergeIgnoredTypes(into.ignoredLineTypes, from.ignoredLineTypes);
  into.redacted += from.redacted;
  into.skipped.push(...from.skipped);
  return into;
}

export type ImportSource = 'claude-code' | 'codex' | 'chatgpt';

/** One conversation as a parser found it, ready for the store's importSession. */
export interface ParsedSession {
  id: string;
  source: ImportSource;
  title: string;
  createdAt: number;
  turns: ImportNode[][];
  headId: string | null;
  meta: Record<string, unknown>;
}

/** What a parser gives back for one file: its sessions and what it left out. */
export interface ParsedFile {
  sessions: ParsedSession[];
  ignoredLines: number;
  /** ignoredLines by line type */
  ignoredLineTypes: Record<string, number>;
  skipped: SkippedLine[];
}

/** A file that is not the format at all (its first line already fails): refused whole. */
export class NotThisFormatError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'NotThisFormatError';
  }
}

/** One numbered line of a file. */
export interface NumberedLine {
  line: number;
  text: string;
}
