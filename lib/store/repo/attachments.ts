import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, realpath, unlink } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ForbiddenPathError, InvalidInputError, NotFoundError } from '../errors.js';
import { DIR_MODE, FILE_MODE } from '../../fs/atomic-write.js';
import { isInside } from '../../fs/real-path.js';

/**
 * Uploaded files of a session (operations.zh.md "附件与恢复"): saved under
 * `<session repo>/workdir/attachments/` and committed with their turn. The stored file name is
 * the attachment's id: safe, unique, and the only thing a download request may name.
 */

export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
/** Bytes, not characters: most filesystems cap a name at 255 bytes; leave room for a suffix. */
const MAX_NAME_BYTES = 180;

export interface SavedAttachment {
  /** The stored file name; use it in `attachmentIds` and `/api/attachments/<sessionId>/<id>`. */
  id: string;
  /** The name as uploaded (sanitised for display). */
  name: string;
  size: number;
  mime: string;
  /** Absolute path of the stored file. */
  path: string;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp',
  '.svg': 'image/svg+xml', '.pdf': 'application/pdf', '.txt': 'text/plain', '.md': 'text/markdown',
  '.csv': 'text/csv', '.json': 'application/json', '.html': 'text/html', '.zip': 'application/zip',
  '.py': 'text/x-python', '.ts': 'text/plain', '.js': 'text/javascript',
};

function mimeFor(name: string, given?: string | null): string {
  const clean = (given ?? '').trim().toLowerCase();
  if (/^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/.test(clean)) return clean;
  return MIME_BY_EXTENSION[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

function truncateBytes(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/**
 * A file name that is safe anywhere: last path component only, letters, digits, `.`, `-`, `_`
 * (spaces become `_`), no leading dots or dashes, at most 180 bytes with the extension kept.
 */
export function sanitizeAttachmentName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  let clean = last
    .normalize('NFC')
    .replace(/\s+/g, '_')
    .replace(/[^\p{L}\p{N}._-]/gu, '')
    .replace(/^[.\-_]+/, '')
    .replace(/\.+$/, '');
  if (!clean) clean = 'attachment';
  const ext = extname(clean);
  const keepExt = ext.length > 1 && ext.length <= 16 && clean.length > ext.length;
  const stem = keepExt ? clean.slice(0, -ext.length) : clean;
  const tail = keepExt ? ext : '';
  return truncateBytes(stem, MAX_NAME_BYTES - Buffer.byteLength(tail)) + tail;
}

/** `<repo>/workdir/attachments`, created if needed; refused if any part of it is a link. */
async function attachmentsDir(sessionRepoDir: string, create: boolean): Promise<{ dir: string; real: string }> {
  const repoReal = await realpath(sessionRepoDir).catch(() => {
    throw new NotFoundError(`session repository not found: ${sessionRepoDir}`);
  });
  let current = repoReal;
  for (const part of ['workdir', 'attachments']) {
    current = join(current, part);
    const info = await lstat(current).catch(() => null);
    if (!info) {
      if (!create) throw new NotFoundError('this session has no attachments');
      await mkdir(current, { mode: DIR_MODE }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      continue;
    }
    if (info.isSymbolicLink() || !info.isDirectory()) throw new ForbiddenPathError(`${current} is not a plain directory`);
  }
  const real = await realpath(current);
  if (!isInside(real, repoReal)) throw new ForbiddenPathError('the attachments folder escapes the session repository');
  return { dir: current, real };
}

export interface AttachmentUpload {
  name: string;
  data: Buffer | Uint8Array;
  mime?: string | null;
}

/** Store an upload; a name already taken gets `-2`, `-3`… before the extension. */
export async function saveAttachment(sessionRepoDir: string, upload: AttachmentUpload): Promise<SavedAttachment> {
  if (typeof upload.name !== 'string') throw new InvalidInputError('attachment name is required');
  if (!(upload.data instanceof Uint8Array)) throw new InvalidInputError('attachment data must be bytes');
  if (upload.data.byteLength > MAX_ATTACHMENT_BYTES) {
    throw new InvalidInputError(`attachment ${JSON.stringify(upload.name)} is larger than 20 MB`);
  }
  const { dir } = await attachmentsDir(sessionRepoDir, true);
  const safe = sanitizeAttachmentName(upload.name);
  // Write the bytes once to a private temp file, then hard-link it under the first free name:
  // link() never replaces an existing file, so two uploads of the same name cannot clobber.
  const temp = join(dir, `.upload-${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', FILE_MODE);
  try {
    try {
      await handle.writeFile(upload.data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // A write cut short (a full disk) would keep its partial temp file, and the space, for good.
    await unlink(temp).catch(() => {});
    throw error;
  }
  try {
    const ext = extname(safe);
    const stem = ext ? safe.slice(0, -ext.length) : safe;
    for (let n = 1; n < 10_000; n++) {
      const candidate = n === 1 ? safe : `${stem}-${n}${ext}`;
      try {
        await link(temp, join(dir, candidate));
        return {
          id: candidate,
          name: Array.from(upload.name.split(/[\\/]/).pop() ?? candidate).slice(0, 200).join('') || candidate,
          size: upload.data.byteLength,
          mime: mimeFor(candidate, upload.mime),
          path: join(dir, candidate),
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    throw new InvalidInputError(`too many attachments named ${JSON.stringify(safe)}`);
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/** Refuse anything but one plain file name. */
function assertAttachmentName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) throw new InvalidInputError('attachment name is required');
  if (name.includes('\0')) throw new InvalidInputError('attachment name contains a NUL character');
  if (name.includes('/') || name.includes('\\')) throw new InvalidInputError('attachment name must not contain a path separator');
  if (name === '.' || name === '..' || name.startsWith('.')) throw new InvalidInputError('attachment name must not start with a dot');
  if (Buffer.byteLength(name) > 255) throw new InvalidInputError('attachment name is too long');
  return name;
}

export interface ResolvedAttachment {
  path: string;
  name: string;
  size: number;
  mime: string;
}

/**
 * The stored attachment `name` of a session, for download. `..`, absolute paths, separators
 * and symlinks are refused (lstat, then realpath containment); a missing file is NotFoundError.
 */
export async function resolveAttachment(sessionRepoDir: string, name: string): Promise<ResolvedAttachment> {
  assertAttachmentName(name);
  const { dir, real } = await attachmentsDir(sessionRepoDir, false);
  const path = join(dir, name);
  const info = await lstat(path).catch(() => null);
  if (!info) throw new NotFoundError(`attachment not found: ${name}`);
  if (info.isSymbolicLink()) throw new ForbiddenPathError(`attachment ${name} is a symbolic link`);
  if (!info.isFile()) throw new NotFoundError(`attachment not found: ${name}`);
  const fileReal = await realpath(path);
  if (!isInside(fileReal, real) || fileReal === real) throw new ForbiddenPathError(`attachment ${name} escapes the attachments folder`);
  return { path: fileReal, name, size: info.size, mime: mimeFor(name) };
}
