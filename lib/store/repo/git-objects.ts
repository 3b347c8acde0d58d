import { createHash, randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { cleanCommitMessage } from '../text.js';

/**
 * Loose-object writer on node's native sha1 and zlib. isomorphic-git's writeTree/writeBlob
 * hash and deflate in JavaScript, which dominates a turn commit once history/ holds thousands
 * of files (DESIGN §1). Objects written here are ordinary loose objects any git reads.
 */
export type GitObjectType = 'blob' | 'tree' | 'commit';

const LARGE_OBJECT_BYTES = 64 * 1024;

export const EMPTY_TREE_OID = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export function hashObject(type: GitObjectType, body: Uint8Array): string {
  const hash = createHash('sha1');
  hash.update(`${type} ${body.length}\0`);
  hash.update(body);
  return hash.digest('hex');
}

export interface ObjectWriteResult {
  oid: string;
  /** bytes written to disk; 0 when the object already existed */
  bytes: number;
  /** the loose file written, or null when the object already existed */
  path: string | null;
}

/** Write one loose object unless it exists; `durable` fsyncs it before returning. */
export function writeLooseObject(gitdir: string, type: GitObjectType, body: Uint8Array, durable: boolean): ObjectWriteResult {
  const oid = hashObject(type, body);
  const dir = join(gitdir, 'objects', oid.slice(0, 2));
  const path = join(dir, oid.slice(2));
  // An object already in a pack may be written loose once more: harmless, the next repack drops it.
  if (existsSync(path)) return { oid, bytes: 0, path: null };
  const header = Buffer.from(`${type} ${body.length}\0`);
  // Large objects (a long session's history tree) are stored, not compressed: deflate costs
  // ~7 ms per 500 KB and the background repack compresses them with deltas anyway.
  const compressed = deflateSync(Buffer.concat([header, body]), { level: body.length > LARGE_OBJECT_BYTES ? 0 : 1 });
  // Written under a temporary name and linked into place: a SIGKILL between open and write used
  // to leave an empty object that the existsSync above then kept forever, corrupting every later
  // commit holding it (found by bench/crash). `tmp_obj_` is the prefix git itself uses.
  const tmp = join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  let fd: number | null = null;
  // A background `git prune-packed` removes empty fan-out directories: make it again if it vanished.
  for (let attempt = 0; fd === null; attempt++) {
    try {
      // Inside the try: the fan-out directory can vanish between mkdir's EEXIST and its stat,
      // which mkdir reports as ENOENT; that is the same race as below, retried the same way.
      mkdirSync(dir, { recursive: true });
      fd = openSync(tmp, 'wx', 0o444);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || attempt >= 5) throw error;
    }
  }
  try {
    try {
      writeSync(fd, compressed);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // link, not rename: a concurrent writer of the same object is harmless (same content), EEXIST.
    linkSync(tmp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { oid, bytes: 0, path: null };
    throw error;
  } finally {
    rmSync(tmp, { force: true });
  }
  return { oid, bytes: compressed.length, path };
}

export interface TreeEntry {
  mode: '100644' | '100755' | '040000' | '120000' | '160000';
  name: string;
  oid: string;
}

/** Git orders tree entries by name, comparing a directory as if its name ended in '/'. */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  const left = a.mode === '040000' ? `${a.name}/` : a.name;
  const right = b.mode === '040000' ? `${b.name}/` : b.name;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function serializeTreeEntry(entry: TreeEntry): Buffer {
  const mode = entry.mode === '040000' ? '40000' : entry.mode;
  return Buffer.concat([Buffer.from(`${mode} ${entry.name}\0`), Buffer.from(entry.oid, 'hex')]);
}

export function serializeTree(entries: TreeEntry[]): Buffer {
  const sorted = [...entries].sort(compareTreeEntries);
  return Buffer.concat(sorted.map(serializeTreeEntry));
}

/** Parse a raw tree body into entries (used when extending a tree read back from git). */
export function parseTree(body: Uint8Array): TreeEntry[] {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const entries: TreeEntry[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const space = buffer.indexOf(0x20, offset);
    const nul = buffer.indexOf(0, space);
    const rawMode = buffer.toString('latin1', offset, space);
    const name = buffer.toString('utf8', space + 1, nul);
    const oid = buffer.toString('hex', nul + 1, nul + 21);
    const mode = (rawMode === '40000' ? '040000' : rawMode) as TreeEntry['mode'];
    entries.push({ mode, name, oid });
    offset = nul + 21;
  }
  return entries;
}

export interface CommitFields {
  tree: string;
  parents: string[];
  author: { name: string; email: string; timestamp: number };
  message: string;
}

/** A commit object; the message is cleaned of NUL and control characters (cleanCommitMessage). */
export function serializeCommit(fields: CommitFields): Buffer {
  const { name, email, timestamp } = fields.author;
  const ident = `${name} <${email}> ${Math.floor(timestamp)} +0000`;
  const lines = [`tree ${fields.tree}`, ...fields.parents.map((p) => `parent ${p}`), `author ${ident}`, `committer ${ident}`];
  const clean = cleanCommitMessage(fields.message);
  const message = clean.endsWith('\n') ? clean : `${clean}\n`;
  return Buffer.from(`${lines.join('\n')}\n\n${message}`);
}
