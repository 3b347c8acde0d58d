import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { PreconditionError } from '../errors.js';
import { atomicWriteFile } from '../../fs/atomic-write.js';

/** A turn's recovery record: manifest.json plus the kept contents under blobs/. */

/** Files larger than this are not snapshotted (undo would refuse rather than lose them). */
export const MAX_SNAPSHOT_BYTES = 100 * 1024 * 1024;

const FileStateSchema = z.object({
  exists: z.boolean(),
  sha256: z.string().nullable(),
  mode: z.number().int().nullable(),
  /** Content file under `blobs/`, when kept. */
  blob: z.string().regex(/^[0-9]+-(before|after)$/).nullable(),
});
export type FileState = z.infer<typeof FileStateSchema>;

const ManifestSchema = z.object({
  version: z.literal(1),
  session_id: z.string(),
  turn: z.number().int().positive(),
  project_path: z.string(),
  state: z.enum(['applied', 'undone']),
  sealed: z.boolean(),
  entries: z.array(z.object({ path: z.string(), before: FileStateSchema, after: FileStateSchema.nullable() })),
  commit: z.object({ sha: z.string().regex(/^[0-9a-f]{40,64}$/), parent: z.string().regex(/^[0-9a-f]{40,64}$/).nullable() }).nullable(),
  undone_at: z.number().nullable(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

export function sameContent(a: FileState, b: FileState): boolean {
  return a.exists === b.exists && (!a.exists || a.sha256 === b.sha256);
}

/** What a file is right now (directories and other non-files get a hash no file can have). */
export async function currentState(abs: string): Promise<FileState & { content: Buffer | null }> {
  const info = await lstat(abs).catch(() => null);
  if (!info) return { exists: false, sha256: null, mode: null, blob: null, content: null };
  if (!info.isFile()) return { exists: true, sha256: `not-a-file:${info.mode}`, mode: null, blob: null, content: null };
  if (info.size > MAX_SNAPSHOT_BYTES) {
    throw new PreconditionError(`${abs} is larger than ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MB; its previous content is not kept for undo`);
  }
  const content = await readFile(abs);
  return { exists: true, sha256: createHash('sha256').update(content).digest('hex'), mode: info.mode & 0o7777, blob: null, content };
}

export async function loadManifest(dir: string): Promise<Manifest | null> {
  let text: string;
  try {
    text = await readFile(join(dir, 'manifest.json'), 'utf8');
  } catch {
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) throw new PreconditionError(`the recovery record in ${dir} is unreadable`);
  return parsed.data;
}

export async function saveManifest(dir: string, manifest: Manifest): Promise<void> {
  await atomicWriteFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

export async function writeFileState(dir: string, abs: string, state: FileState): Promise<void> {
  if (!state.exists) {
    await unlink(abs).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    return;
  }
  if (!state.blob) throw new PreconditionError(`no kept content for ${abs}`);
  const content = await readFile(join(dir, 'blobs', state.blob));
  await mkdir(dirname(abs), { recursive: true });
  await atomicWriteFile(abs, content);
  if (state.mode !== null) await chmod(abs, state.mode);
}
