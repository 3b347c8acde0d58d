import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistryEntry } from '../types.js';

/**
 * The registry log (DESIGN §4.2, docs/decisions.md): full entries appended beside index.json, one
 * JSON object a line. Segments are numbered; a compaction starts a new one and deletes the older
 * ones once index.json covers them, so replaying index.json + every segment in order is always
 * the registry, whenever a crash comes.
 */
export const LOG_DIR = '.index-log';
const SEGMENT = /^(\d{6,})\.log$/;

export type LogRecord = { op: 'set'; entry: RegistryEntry } | { op: 'delete'; id: string };

/** A segment's path relative to the sessions directory. */
export function segmentName(segment: number): string {
  return join(LOG_DIR, `${segment.toString().padStart(6, '0')}.log`);
}

export function ensureLogDir(sessionsDir: string): void {
  mkdirSync(join(sessionsDir, LOG_DIR), { recursive: true, mode: 0o700 });
}

/** Segment numbers present, oldest first. */
export function listSegments(sessionsDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(join(sessionsDir, LOG_DIR));
  } catch {
    return [];
  }
  const segments: number[] = [];
  for (const name of names) {
    const match = SEGMENT.exec(name);
    if (match) segments.push(Number(match[1]));
  }
  return segments.sort((a, b) => a - b);
}

export function recordLine(record: LogRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export interface LogReplay {
  records: LogRecord[];
  /** a complete line that is not a record: the log cannot be trusted (→ rebuild from meta.json) */
  damaged: boolean;
  /** an unterminated last line, from a write a crash cut short: ignored */
  tornTails: number;
}

function parseRecord(line: string): LogRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  if (record['op'] === 'delete' && typeof record['id'] === 'string') return { op: 'delete', id: record['id'] };
  const entry = record['entry'];
  if (record['op'] === 'set' && entry !== null && typeof entry === 'object' && !Array.isArray(entry) && typeof (entry as { id?: unknown }).id === 'string') {
    return { op: 'set', entry: entry as RegistryEntry };
  }
  return null;
}

/** Every record of every segment, in order. A torn last line of a segment is skipped. */
export function readLog(sessionsDir: string, segments = listSegments(sessionsDir)): LogReplay {
  const replay: LogReplay = { records: [], damaged: false, tornTails: 0 };
  for (const segment of segments) {
    let text: string;
    try {
      text = readFileSync(join(sessionsDir, segmentName(segment)), 'utf8');
    } catch {
      replay.damaged = true;
      continue;
    }
    const lines = text.split('\n');
    // After the last '\n' comes either nothing or a line whose write never finished.
    if (lines.pop() !== '') replay.tornTails++;
    for (const line of lines) {
      const record = parseRecord(line);
      if (record) replay.records.push(record);
      else replay.damaged = true;
    }
  }
  return replay;
}
