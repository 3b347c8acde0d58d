/**
 * git's index file (formats 2–4) read here, because a `git ls-files` or `git status` of a big
 * repository costs a process start from the server, more than reading the file. Paths and ids
 * stay Buffers (views into the file for formats 2 and 3) so that comparing two indexes of
 * 10,000 entries decodes only what differs. null: not a layout read here (a split index, an
 * unknown version, a hash of another length), and the caller asks git.
 */

export interface IndexEntry {
  path: Buffer;
  mode: number;
  oid: Buffer;
  /** 0, or 1–3 for the sides of a conflict */
  stage: number;
}

export interface IndexFile {
  entries: IndexEntry[];
  /** The cache-tree's root tree when it is valid (it then equals what `git write-tree` would write). */
  rootTree: string | null;
}

export const GITLINK_MODE = 0o160000;
/** A sparse index's directory entry: not a file, the index is not the whole list. */
export const SPARSE_DIRECTORY_MODE = 0o040000;
const VALID_MODES = new Set([0o100644, 0o100755, 0o120000, GITLINK_MODE, SPARSE_DIRECTORY_MODE]);

export function parseIndex(buf: Buffer, hashLength = 20): IndexFile | null {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = buf.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let pos = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let n = 0; n < count; n++) {
    const start = pos;
    if (pos + 40 + hashLength + 2 > buf.length) return null;
    const mode = buf.readUInt32BE(pos + 24);
    if (!VALID_MODES.has(mode)) return null;
    const oid = buf.subarray(pos + 40, pos + 40 + hashLength);
    pos += 40 + hashLength;
    const flags = buf.readUInt16BE(pos);
    pos += 2;
    if (flags & 0x4000) {
      if (version < 3) return null;
      pos += 2;
    }
    let path: Buffer;
    if (version === 4) {
      const strip = readVarint(buf, pos);
      if (!strip || strip.value > previous.length) return null;
      pos = strip.next;
      const end = buf.indexOf(0, pos);
      if (end < 0) return null;
      path = Buffer.concat([previous.subarray(0, previous.length - strip.value), buf.subarray(pos, end)]);
      pos = end + 1;
    } else {
      const end = buf.indexOf(0, pos);
      if (end < 0) return null;
      path = buf.subarray(pos, end);
      // Entries are NUL-padded to a multiple of 8 bytes.
      pos = start + Math.ceil((end - start + 1) / 8) * 8;
    }
    const nameLength = flags & 0x0fff;
    if (nameLength !== Math.min(path.length, 0x0fff)) return null;
    entries.push({ path, mode, oid, stage: (flags >> 12) & 3 });
    previous = path;
  }
  const extensions = readExtensions(buf, pos, hashLength);
  return extensions && { entries, rootTree: extensions.rootTree };
}

/** The extensions after the entries: the cache-tree's root, or null for a split index. */
function readExtensions(buf: Buffer, from: number, hashLength: number): { rootTree: string | null } | null {
  let rootTree: string | null = null;
  let pos = from;
  while (pos + 8 <= buf.length - hashLength) {
    const signature = buf.toString('latin1', pos, pos + 4);
    const size = buf.readUInt32BE(pos + 4);
    // A split index keeps most entries in a shared file: this one alone is not the whole list.
    if (signature === 'link') return null;
    if (signature === 'TREE') rootTree = validRootTree(buf.subarray(pos + 8, pos + 8 + size), hashLength);
    pos += 8 + size;
  }
  return { rootTree };
}

/** The root entry of a TREE extension: `\0<entries> <subtrees>\n<oid>`, entries -1 when invalid. */
function validRootTree(data: Buffer, hashLength: number): string | null {
  if (data[0] !== 0) return null;
  const newline = data.indexOf(0x0a, 1);
  if (newline < 0) return null;
  const [entryCount] = data.toString('latin1', 1, newline).split(' ');
  if (entryCount === undefined || !/^\d+$/.test(entryCount)) return null;
  if (newline + 1 + hashLength > data.length) return null;
  return data.toString('hex', newline + 1, newline + 1 + hashLength);
}

/** git's offset varint (index v4 path prefix lengths). */
function readVarint(buf: Buffer, at: number): { value: number; next: number } | null {
  let pos = at;
  if (pos >= buf.length) return null;
  let c = buf[pos++]!;
  let value = c & 127;
  while (c & 128) {
    if (pos >= buf.length || value > 1 << 24) return null;
    value += 1;
    c = buf[pos++]!;
    value = value * 128 + (c & 127);
  }
  return { value, next: pos };
}

/** Where each entry of a format 2 or 3 index lies, without a copy or an object per entry. */
export interface IndexLayout {
  buf: Buffer;
  count: number;
  /** per entry: its start, then its path's start and end */
  at: Int32Array;
  /** any entry not at stage 0, or a sparse directory */
  unusual: boolean;
  rootTree: string | null;
}

/** The layout of a format 2 or 3 SHA-1 index; null for anything else (format 4 compresses paths: parseIndex). */
export function indexLayout(buf: Buffer): IndexLayout | null {
  const hashLength = 20;
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3) return null;
  const count = buf.readUInt32BE(8);
  const at = new Int32Array(count * 3);
  let unusual = false;
  let pos = 12;
  for (let n = 0; n < count; n++) {
    const start = pos;
    if (pos + 62 > buf.length) return null;
    const mode = buf.readUInt32BE(pos + 24);
    if (!VALID_MODES.has(mode)) return null;
    const flags = buf.readUInt16BE(pos + 60);
    if (mode === SPARSE_DIRECTORY_MODE || flags & 0x3000) unusual = true;
    pos += 62;
    if (flags & 0x4000) {
      if (version < 3) return null;
      pos += 2;
    }
    const end = buf.indexOf(0, pos);
    if (end < 0 || (flags & 0x0fff) !== Math.min(end - pos, 0x0fff)) return null;
    at[n * 3] = start;
    at[n * 3 + 1] = pos;
    at[n * 3 + 2] = end;
    pos = start + Math.ceil((end - start + 1) / 8) * 8;
  }
  const extensions = readExtensions(buf, pos, hashLength);
  return extensions && { buf, count, at, unusual, rootTree: extensions.rootTree };
}

/** Entry `n` of a layout, as parseIndex gives it (decoded only for what differs). */
export function layoutEntry(layout: IndexLayout, n: number): IndexEntry {
  const start = layout.at[n * 3]!;
  const flags = layout.buf.readUInt16BE(start + 60);
  return {
    path: layout.buf.subarray(layout.at[n * 3 + 1], layout.at[n * 3 + 2]),
    mode: layout.buf.readUInt32BE(start + 24),
    oid: layout.buf.subarray(start + 40, start + 60),
    stage: (flags >> 12) & 3,
  };
}

/**
 * The entries that differ in mode or id between two layouts, in git's order, as [before, after]
 * pairs (one side undefined for an added or removed path). Stat data is not compared.
 */
export function differingEntries(before: IndexLayout, after: IndexLayout): Array<[IndexEntry | undefined, IndexEntry | undefined]> {
  const out: Array<[IndexEntry | undefined, IndexEntry | undefined]> = [];
  const a = before.buf;
  const b = after.buf;
  let i = 0;
  let j = 0;
  while (i < before.count || j < after.count) {
    const order = i >= before.count ? 1 : j >= after.count ? -1
      : a.compare(b, after.at[j * 3 + 1], after.at[j * 3 + 2], before.at[i * 3 + 1], before.at[i * 3 + 2]);
    if (order < 0) {
      out.push([layoutEntry(before, i++), undefined]);
    } else if (order > 0) {
      out.push([undefined, layoutEntry(after, j++)]);
    } else {
      const x = before.at[i * 3]!;
      const y = after.at[j * 3]!;
      // mode at +24 (4 bytes), id at +40 (20 bytes)
      if (a.compare(b, y + 24, y + 28, x + 24, x + 28) !== 0 || a.compare(b, y + 40, y + 60, x + 40, x + 60) !== 0) {
        out.push([layoutEntry(before, i), layoutEntry(after, j)]);
      }
      i++;
      j++;
    }
  }
  return out;
}
