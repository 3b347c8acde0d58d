import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { atomicWriteFileSync, DIR_MODE, FILE_MODE } from '../../fs/atomic-write.js';
import type { Redactor, SessionMeta, StoredNode } from '../types.js';
import { redactMetaInPlace, redactNodeFieldsInPlace } from './redact-record.js';

/** Files inside one session repository (FORMAT.md "Session repo"). */
export const META_FILE = 'meta.json';
export const HISTORY_DIR = 'history';

function metaPath(repoDir: string): string {
  return join(repoDir, META_FILE);
}

function historyDir(repoDir: string): string {
  return join(repoDir, HISTORY_DIR);
}

/** meta.json, or null when missing, unparsable or not an object: such a directory is no session. */
export function readMeta(repoDir: string): SessionMeta | null {
  let text: string;
  try {
    text = readFileSync(metaPath(repoDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    return value as SessionMeta;
  } catch {
    return null;
  }
}

/**
 * Atomic but not fsynced: a process crash loses nothing already written, and the turn commit
 * is what makes a turn survive power loss (DESIGN §4.2).
 *
 * Every meta.json write passes the redactor first (title, cwd, branch names, …: redact-record.ts),
 * which redacts `meta` in place, so memory holds what disk does. The redactor is required (null:
 * the user turned redaction off), so no writer can forget it.
 */
export function writeMeta(repoDir: string, meta: SessionMeta, redactor: Redactor | null): void {
  redactMetaInPlace(meta, redactor);
  writeMetaText(repoDir, meta);
}

function writeMetaText(repoDir: string, meta: SessionMeta): void {
  atomicWriteFileSync(metaPath(repoDir), JSON.stringify(meta), { durable: false });
}

let metaTemp = 0;

/**
 * writeMeta off the main thread (the registry's immediate operations): same atomic rename,
 * but the open/write/rename wait in the thread pool, where a busy file system cannot stall
 * every other request.
 */
export async function writeMetaAsync(repoDir: string, meta: SessionMeta, redactor: Redactor | null): Promise<void> {
  redactMetaInPlace(meta, redactor);
  const path = metaPath(repoDir);
  const tmp = `${path}.${process.pid}.${++metaTemp}.tmp`;
  await writeFile(tmp, JSON.stringify(meta), { mode: FILE_MODE });
  await rename(tmp, path);
}

/**
 * meta.json on the append path, where it changes with every message: one positional write over
 * the old content, padded with spaces (valid trailing JSON whitespace) to at least the old
 * length, so the file is never truncated. A single write() cannot be torn by a process crash,
 * and it skips the rename that ext4 turns into a flush of the new file (a rename costs ~5× a
 * message's own file). Falls back to the atomic rewrite when the file is missing or the write
 * comes up short.
 */
export function writeMetaInPlace(repoDir: string, meta: SessionMeta, redactor: Redactor | null): void {
  redactMetaInPlace(meta, redactor);
  const path = metaPath(repoDir);
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch {
    writeMetaText(repoDir, meta);
    return;
  }
  let complete = false;
  try {
    const text = Buffer.from(JSON.stringify(meta));
    const size = fstatSync(fd).size;
    const buffer = text.length >= size ? text : Buffer.concat([text, Buffer.alloc(size - text.length, 0x20)]);
    complete = writeSync(fd, buffer, 0, buffer.length, 0) === buffer.length;
  } finally {
    closeSync(fd);
  }
  if (!complete) writeMetaText(repoDir, meta);
}

/** A node file name: `<seq>-<role letter>-<id>.json` (FORMAT.md). */
export const NODE_FILE_PATTERN = /^(\d+)-([A-Za-z])-(.+)\.json$/;
const NODE_FILE = NODE_FILE_PATTERN;

export interface NodeFileName {
  name: string;
  seq: number;
  letter: string;
  id: string;
  width: number;
}

export function parseNodeFileName(name: string): NodeFileName | null {
  const match = NODE_FILE.exec(name);
  if (!match) return null;
  const digits = match[1]!;
  return { name, seq: Number(digits), letter: match[2]!, id: match[3]!, width: digits.length };
}

/** u user, a assistant, t tool, s system (FORMAT.md). */
function roleLetter(node: Pick<StoredNode, 'role' | 'metadata'>): string {
  if (node.role === 'user') return 'u';
  if (node.role === 'code') return 't';
  if (node.metadata && node.metadata['role'] === 'system') return 's';
  return 'a';
}

export function nodeFileName(node: StoredNode, width: number): string {
  return `${String(node.seq).padStart(width, '0')}-${roleLetter(node)}-${node.id}.json`;
}

export function listNodeFiles(repoDir: string): NodeFileName[] {
  let names: string[];
  try {
    names = readdirSync(historyDir(repoDir));
  } catch {
    return [];
  }
  const files: NodeFileName[] = [];
  for (const name of names) {
    const parsed = parseNodeFileName(name);
    if (parsed) files.push(parsed);
  }
  return files;
}

/** Read a node file; a torn or foreign file is skipped rather than failing the whole session. */
export function readNodeFile(repoDir: string, name: string): StoredNode | null {
  try {
    return parseNodeText(readFileSync(join(historyDir(repoDir), name), 'utf8'));
  } catch {
    return null;
  }
}

/** The node and the length of its file's text (what decides whether memory keeps it whole). */
export function readNodeFileSized(repoDir: string, name: string): { node: StoredNode; chars: number } | null {
  let text: string;
  try {
    text = readFileSync(join(historyDir(repoDir), name), 'utf8');
  } catch {
    return null;
  }
  const node = parseNodeText(text);
  return node ? { node, chars: text.length } : null;
}

/** A node file's text (from disk or a git blob); null when torn or foreign. */
export function parseNodeText(text: string): StoredNode | null {
  try {
    const value: unknown = JSON.parse(text);
    return isNodeShape(value) ? normaliseNode(value) : null;
  } catch {
    return null;
  }
}

function isNodeShape(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const node = value as Record<string, unknown>;
  return typeof node['id'] === 'string' && typeof node['seq'] === 'number' && typeof node['role'] === 'string';
}

function normaliseNode(raw: Record<string, unknown>): StoredNode {
  const metadata = raw['metadata'];
  return {
    ...raw,
    id: raw['id'] as string,
    seq: raw['seq'] as number,
    role: raw['role'] as string,
    created_at: typeof raw['created_at'] === 'number' ? raw['created_at'] : 0,
    name: typeof raw['name'] === 'string' ? raw['name'] : '',
    input: raw['input'] ?? null,
    output: raw['output'] ?? null,
    caller: typeof raw['caller'] === 'string' ? raw['caller'] : '',
    predecessor: typeof raw['predecessor'] === 'string' && raw['predecessor'] !== '' ? raw['predecessor'] : null,
    reads: Array.isArray(raw['reads']) ? (raw['reads'] as string[]) : [],
    metadata: metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {},
  };
}

/**
 * A node file is written once and never changed. Exclusive create: a second writer of the
 * same name is a bug, not something to overwrite. The bytes exist before the file does, so a
 * node that cannot be serialised leaves nothing behind; a failed write removes its file.
 */
/**
 * Returns the length of the file's text and the secrets taken out of the node's own fields (its
 * name: a model slug a client chose), which are redacted in place like meta.json's; the message
 * parts (content, input, metadata) are the caller's to redact and count, before it gets here.
 */
export function writeNodeFile(repoDir: string, name: string, node: StoredNode, redactor: Redactor | null): { chars: number; redacted: number } {
  const redacted = redactNodeFieldsInPlace(node, redactor);
  const bytes = JSON.stringify(node);
  const dir = historyDir(repoDir);
  // Written under a temporary name (not *.json, which readers take) and linked into place: a
  // SIGKILL mid-write used to leave a torn node file (found by bench/crash). link keeps 'wx'.
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  let fd: number;
  try {
    fd = openSync(tmp, 'w', FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dir, { recursive: true, mode: DIR_MODE }); // the first message makes history/
    fd = openSync(tmp, 'w', FILE_MODE);
  }
  try {
    try {
      writeFileSync(fd, bytes);
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, join(dir, name));
  } finally {
    rmSync(tmp, { force: true });
  }
  return { chars: bytes.length, redacted };
}
