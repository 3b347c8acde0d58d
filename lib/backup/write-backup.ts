import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, readdirSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import { dirname, join, posix } from 'node:path';
import { pack as tarPack, type Pack } from 'tar-stream';
import { childDirectories } from '../fs/child-directories.js';
import { BACKUP_FORMAT, BACKUP_VERSION, DATA_PREFIX, INFO_ENTRY, MANIFEST_ENTRY, type BackupInfo, type ManifestLine } from './backup-format.js';
import { isLeftOut, isRegistryFile, listObjects, walk, type WalkStep } from './backup-sources.js';
import { userScopedAuthFiles } from './user-scope.js';

export interface BackupProgress {
  files: number;
  bytes: number;
  /** the top-level part being copied: "auth", "users/<id>", … */
  part: string;
  /** the file just copied, relative to the data directory */
  path: string;
}

export interface WriteBackupOptions {
  dataDir: string;
  /** the tar to write; written as `<out>.partial` and renamed when whole */
  out: string;
  /** one user's backup: that user's folders and auth records only */
  userId?: string | null;
  onProgress?: (progress: BackupProgress) => void;
  now?: () => Date;
}

export interface BackupSummary {
  out: string;
  cutAt: string;
  files: number;
  bytes: number;
  sessions: number;
}

/** How often a repository's objects are listed again when a repack moved them while they were read. */
const OBJECT_PASSES = 5;

/**
 * A consistent copy of a data directory (or one user's part of it) while the server runs and
 * writes go on (DESIGN §17). The cut comes first: the auth files and every user's registry (its
 * snapshot, log and journal, each read up to its size then), so every write acknowledged before
 * it is in the backup; then each repository, its refs before the objects they name and the
 * objects listed again if a repack moved them; then the rest. Files are read from an open
 * descriptor up to the size they had then: a file replaced or appended to meanwhile is taken as it
 * was. The manifest (size and sha-256 of every entry) is written last.
 */
export async function writeBackup(options: WriteBackupOptions): Promise<BackupSummary> {
  const { dataDir } = options;
  if (!existsSync(join(dataDir, 'users')) && !existsSync(join(dataDir, 'auth'))) {
    throw new BackupError(`${dataDir} is not a data directory (no users/ or auth/)`);
  }
  const userId = options.userId ?? null;
  if (userId !== null && !existsSync(join(dataDir, 'users', userId))) throw new BackupError(`no user ${userId} in ${dataDir}`);

  const partial = `${options.out}.partial`;
  const file = createWriteStream(partial, { mode: 0o600 });
  const tar = tarPack();
  tar.pipe(file);
  const writer = new EntryWriter(tar, dataDir, options.onProgress);
  try {
    const cutAt = (options.now?.() ?? new Date()).toISOString();
    const info: BackupInfo = { format: BACKUP_FORMAT, version: BACKUP_VERSION, cutAt, userId };
    await writer.raw(INFO_ENTRY, Buffer.from(`${JSON.stringify(info)}\n`));

    const users = userId === null ? childDirectories(join(dataDir, 'users')) : [userId];
    // The cut: auth records and every registry, before any repository is read.
    writer.part = 'auth';
    if (userId === null) {
      for (const step of walk(dataDir, 'auth')) await writer.step(step);
    } else {
      await writer.directory('auth');
      for (const [name, bytes] of userScopedAuthFiles(join(dataDir, 'auth'), userId)) await writer.data(`auth/${name}`, bytes);
    }
    const registryTaken = new Set<string>();
    for (const user of users) {
      const sessions = `users/${user}/sessions`;
      for (const name of readdirSafe(join(dataDir, sessions)).filter(isRegistryFile).sort()) {
        await writer.step({ kind: 'file', rel: `${sessions}/${name}` });
        registryTaken.add(`${sessions}/${name}`);
      }
    }

    const tops = userId === null ? topLevel(dataDir).filter((name) => name !== 'auth') : ['users', 'workspaces'];
    for (const top of tops) {
      const owned = top === 'users' || top === 'workspaces';
      if (!owned) {
        writer.part = top;
        for (const step of walk(dataDir, top)) await writer.step(step);
        continue;
      }
      await writer.directory(top);
      const ids = userId === null ? childDirectories(join(dataDir, top)) : [userId].filter((id) => existsSync(join(dataDir, top, id)));
      for (const id of ids) {
        writer.part = `${top}/${id}`;
        for (const step of walk(dataDir, `${top}/${id}`, (rel) => registryTaken.has(rel))) await writer.step(step);
      }
    }
    const sessions = writer.lines.filter((line) => line.type === 'file' && /^users\/[^/]+\/sessions\/(?:projects\/[^/]+\/)?[^/]+\/meta\.json$/.test(line.path)).length;
    const manifest = writer.lines.map((line) => JSON.stringify(line)).join('\n');
    const end = JSON.stringify({ end: true, entries: writer.lines.length, sessions });
    await writer.raw(MANIFEST_ENTRY, Buffer.from(`${manifest}${manifest ? '\n' : ''}${end}\n`));
    tar.finalize();
    await once(file, 'close');
    const handle = await open(partial, 'r+');
    await handle.sync().finally(() => handle.close());
    await rename(partial, options.out);
    await syncDirectory(dirname(options.out));
    return { out: options.out, cutAt, files: writer.files, bytes: writer.bytes, sessions };
  } catch (error) {
    tar.destroy();
    file.destroy();
    await rm(partial, { force: true });
    throw error;
  }
}

export class BackupError extends Error {}

/** Writes tar entries one after another, hashing each, and keeps the manifest's lines. */
class EntryWriter {
  readonly lines: ManifestLine[] = [];
  files = 0;
  bytes = 0;
  part = '';
  private readonly directories = new Set<string>();

  constructor(
    private readonly tar: Pack,
    private readonly root: string,
    private readonly onProgress?: (progress: BackupProgress) => void,
  ) {}

  async step(step: WalkStep): Promise<void> {
    if (step.kind === 'directory') await this.directory(step.rel);
    else if (step.kind === 'file') await this.file(step.rel);
    else await this.objects(step.rel);
  }

  async directory(rel: string): Promise<void> {
    if (this.directories.has(rel)) return;
    this.directories.add(rel);
    await this.entry({ name: `${DATA_PREFIX}${rel}/`, type: 'directory', mode: 0o700 });
    this.lines.push({ path: rel, type: 'directory', size: 0, sha256: '' });
  }

  /** A file of the data directory, as it is when opened; false when it is gone by then. */
  async file(rel: string): Promise<boolean> {
    if (isLeftOut(rel)) return true;
    let handle: FileHandle;
    try {
      handle = await open(join(this.root, rel), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) return true;
      const hash = createHash('sha256');
      const entry = this.tar.entry({ name: `${DATA_PREFIX}${rel}`, type: 'file', size: stats.size, mode: 0o600, mtime: stats.mtime });
      const done = new Promise<void>((resolve, reject) => entry.once('error', reject).once('finish', resolve));
      if (stats.size > 0) {
        // Up to the size it had when opened: a log appended to meanwhile is taken as it was.
        for await (const chunk of handle.createReadStream({ autoClose: false, start: 0, end: stats.size - 1 }) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          if (!entry.write(chunk)) await once(entry, 'drain');
        }
      }
      entry.end(() => undefined);
      await done;
      this.lines.push({ path: rel, type: 'file', size: stats.size, sha256: hash.digest('hex') });
      this.files++;
      this.bytes += stats.size;
      this.onProgress?.({ files: this.files, bytes: this.bytes, part: this.part, path: rel });
      return true;
    } finally {
      await handle.close();
    }
  }

  /**
   * A repository's objects: a loose object or pack a repack removed after it was listed is in
   * the pack that repack wrote, which the next listing finds.
   */
  private async objects(rel: string): Promise<void> {
    const taken = new Set<string>();
    for (let pass = 0; pass < OBJECT_PASSES; pass++) {
      let missing = false;
      for (const step of listObjects(this.root, rel)) {
        if (taken.has(step.rel)) continue;
        if (step.kind === 'directory') await this.directory(step.rel);
        else if (!(await this.file(step.rel))) {
          missing = true;
          continue;
        }
        taken.add(step.rel);
      }
      if (!missing) return;
    }
    throw new BackupError(`${posix.dirname(rel)}: its objects kept moving while they were read (${OBJECT_PASSES} passes); run the backup again`);
  }

  /** Bytes that are no file of the data directory (a filtered auth file). */
  async data(rel: string, bytes: Buffer): Promise<void> {
    await this.raw(`${DATA_PREFIX}${rel}`, bytes);
    this.lines.push({ path: rel, type: 'file', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    this.files++;
    this.bytes += bytes.length;
  }

  async raw(name: string, bytes: Buffer): Promise<void> {
    await this.entry({ name, type: 'file', size: bytes.length, mode: 0o600 }, bytes);
  }

  private entry(header: Parameters<Pack['entry']>[0], body?: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.tar.entry(header, body ?? Buffer.alloc(0), (error) => (error ? reject(error) : resolve()));
    });
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The data directory's own entries but the lock, auth first (it is part of the cut). */
function topLevel(dataDir: string): string[] {
  return readdirSync(dataDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !isLeftOut(entry.name))
    .map((entry) => entry.name)
    .sort();
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  await handle.sync().catch(() => undefined).finally(() => handle.close());
}
