import { posix } from 'node:path';
import { z } from 'zod';

/**
 * A backup (DESIGN §17) is one tar: `.entity-memory-backup/info.json` first (what it is, when its
 * cut was), the data directory's files under `data/`, and `.entity-memory-backup/manifest.jsonl`
 * last (a line per file: path, size, sha-256), so a reader checks every byte against it.
 */
export const BACKUP_FORMAT = 'entity-memory-backup';
export const BACKUP_VERSION = 1;
export const INFO_ENTRY = '.entity-memory-backup/info.json';
export const MANIFEST_ENTRY = '.entity-memory-backup/manifest.jsonl';
export const DATA_PREFIX = 'data/';

export const backupInfoSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  /** when the registries and auth files were read: every write acknowledged before it is in the backup */
  cutAt: z.string(),
  /** one user's backup (its id), or null for the whole data directory */
  userId: z.string().nullable(),
});
export type BackupInfo = z.infer<typeof backupInfoSchema>;

export const manifestLineSchema = z.object({
  path: z.string(),
  type: z.enum(['file', 'directory']),
  size: z.number().int().nonnegative(),
  /** hex sha-256 of a file's bytes; "" for a directory */
  sha256: z.string(),
});
export type ManifestLine = z.infer<typeof manifestLineSchema>;

/** The last line of the manifest: how many entries it lists, so a cut-off manifest is told from a whole one. */
export const manifestEndSchema = z.object({ end: z.literal(true), entries: z.number().int().nonnegative(), sessions: z.number().int().nonnegative() });

/**
 * A path inside the data directory as a backup names it, or null when it is not one: relative,
 * POSIX, no `.`/`..` parts, no empty parts. A restore writes only such paths.
 */
export function safeDataPath(name: string): string | null {
  if (!name.startsWith(DATA_PREFIX)) return null;
  const rest = name.slice(DATA_PREFIX.length).replace(/\/$/, '');
  if (rest === '' || rest.includes('\\') || rest.includes('\0')) return null;
  const parts = rest.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) return null;
  return posix.normalize(rest) === rest ? rest : null;
}
