import { readFile } from 'node:fs/promises';
import { fileSignature } from '../../fs/file-signature.js';
import { runGit, splitNul } from './git-cli.js';

/**
 * The gitlinks (submodule entries, mode 160000) of an index file. Git recurses into a populated
 * submodule from `git add` whatever the config says, so callers keep these paths out of its
 * pathspecs and check the nested repositories' own config. The index is parsed here (formats
 * 2–4) because a `git ls-files -s` of a big repository costs far more than a turn's commit;
 * anything unusual (split index, unknown version) falls back to asking git.
 */

const GITLINK_MODE = 0o160000;
const VALID_MODES = new Set([0o100644, 0o100755, 0o120000, GITLINK_MODE, 0o040000]);

/** Parse the entries' gitlink paths with hashes of `hashLength` bytes; null: not that layout. */
export function parseIndexGitlinks(buf: Buffer, hashLength = 20): string[] | null {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = buf.readUInt32BE(8);
  const links: string[] = [];
  let pos = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let n = 0; n < count; n++) {
    const start = pos;
    if (pos + 40 + hashLength + 2 > buf.length) return null;
    const mode = buf.readUInt32BE(pos + 24);
    if (!VALID_MODES.has(mode)) return null;
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
    if (mode === GITLINK_MODE) links.push(path.toString('utf8'));
    previous = path;
  }
  // A split index keeps most entries in a shared file: this one alone is not the whole list.
  while (pos + 8 <= buf.length - hashLength) {
    const signature = buf.toString('latin1', pos, pos + 4);
    if (signature === 'link') return null;
    pos += 8 + buf.readUInt32BE(pos + 4);
  }
  return links;
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

const cache = new Map<string, { signature: string; links: string[] }>();
const CACHE_LIMIT = 1_000;

/**
 * Gitlink paths in `indexFile` (none when it does not exist). Paths that could leave the
 * working tree (`..`, absolute) are dropped: git never writes them, and we only look there.
 */
export async function listGitlinks(cwd: string, indexFile: string): Promise<string[]> {
  const signature = await fileSignature(indexFile);
  if (signature === null) return [];
  const cached = cache.get(indexFile);
  if (cached && cached.signature === signature) return cached.links;
  const buf = await readFile(indexFile).catch(() => null);
  if (!buf) return [];
  let links = parseIndexGitlinks(buf, 20) ?? parseIndexGitlinks(buf, 32);
  if (!links) {
    const { stdout } = await runGit(cwd, ['ls-files', '-s', '-z'], { env: { GIT_INDEX_FILE: indexFile } });
    links = splitNul(stdout)
      .filter((line) => line.startsWith('160000 '))
      .map((line) => line.slice(line.indexOf('\t') + 1));
  }
  links = links.filter((p) => p !== '' && !p.startsWith('/') && !p.split('/').includes('..'));
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(indexFile, { signature, links });
  return links;
}
