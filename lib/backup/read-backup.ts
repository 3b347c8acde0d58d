import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, dirname, join, resolve } from 'node:path';
import { extract as tarExtract } from 'tar-stream';
import { childDirectories } from '../fs/child-directories.js';
import { isSessionId } from '../store/index.js';
import {
  backupInfoSchema,
  INFO_ENTRY,
  MANIFEST_ENTRY,
  manifestEndSchema,
  manifestLineSchema,
  safeDataPath,
  type BackupInfo,
  type ManifestLine,
} from './backup-format.js';
import { BackupError } from './write-backup.js';

export interface BackupCheck {
  info: BackupInfo | null;
  entries: number;
  sessions: number;
  bytes: number;
  /** what is wrong, one line each: empty for a whole backup */
  problems: string[];
}

/** What to do with each data entry while it is read: nothing (verify) or write it out (restore). */
type EntrySink = (path: string, type: 'file' | 'directory', body: AsyncIterable<Buffer>) => Promise<void>;

const MAX_INFO_BYTES = 64 * 1024;

/**
 * Read a backup through once: its info first, every data entry hashed (and handed to `sink`),
 * the manifest last, then every entry checked against the manifest. Never throws for a bad
 * backup: what is wrong is in `problems`.
 */
async function readBackup(path: string, sink: EntrySink | null, onProgress?: (entries: number, bytes: number) => void): Promise<BackupCheck> {
  const check: BackupCheck = { info: null, entries: 0, sessions: 0, bytes: 0, problems: [] };
  const seen = new Map<string, ManifestLine>();
  let manifestText: string | null = null;
  const input = createReadStream(path);
  const extract = tarExtract();
  input.on('error', (error) => extract.destroy(error));
  input.pipe(extract);
  let first = true;
  try {
    for await (const entry of extract) {
      const { name, type } = entry.header;
      if (first) {
        first = false;
        if (name !== INFO_ENTRY) {
          check.problems.push('not an Entity Memory backup (it does not start with its info)');
          entry.resume();
          break;
        }
        const info = backupInfoSchema.safeParse(parseJson(await collect(entry as unknown as AsyncIterable<Buffer>, MAX_INFO_BYTES)));
        if (!info.success) {
          check.problems.push('its info is not one this version reads');
          break;
        }
        check.info = info.data;
        continue;
      }
      if (name === MANIFEST_ENTRY) {
        manifestText = (await collect(entry as unknown as AsyncIterable<Buffer>, Number.MAX_SAFE_INTEGER)).toString('utf8');
        continue;
      }
      const dataPath = safeDataPath(name);
      if (dataPath === null || (type !== 'file' && type !== 'directory') || seen.has(dataPath)) {
        check.problems.push(`unexpected entry ${JSON.stringify(name)} (${type ?? 'no type'})`);
        entry.resume();
        continue;
      }
      if (manifestText !== null) check.problems.push(`entry ${dataPath} after the manifest`);
      const hash = createHash('sha256');
      let size = 0;
      const hashed = (async function* () {
        for await (const chunk of entry as unknown as AsyncIterable<Buffer>) {
          hash.update(chunk);
          size += chunk.length;
          yield chunk;
        }
      })();
      if (sink) await sink(dataPath, type, hashed);
      else for await (const _chunk of hashed); // eslint-disable-line @typescript-eslint/no-unused-vars
      seen.set(dataPath, { path: dataPath, type, size, sha256: type === 'file' ? hash.digest('hex') : '' });
      check.entries++;
      check.bytes += size;
      onProgress?.(check.entries, check.bytes);
    }
  } catch (error) {
    check.problems.push(`the archive cannot be read: ${(error as Error).message}`);
  } finally {
    input.destroy();
  }
  if (first) check.problems.push('not an Entity Memory backup (empty)');
  if (check.info && check.problems.length === 0) compareWithManifest(manifestText, seen, check);
  return check;
}

function compareWithManifest(text: string | null, seen: Map<string, ManifestLine>, check: BackupCheck): void {
  if (text === null) {
    check.problems.push('the manifest is missing: the backup was cut off');
    return;
  }
  const lines = text.split('\n').filter(Boolean);
  const end = manifestEndSchema.safeParse(parseJson(Buffer.from(lines.pop() ?? '')));
  if (!end.success || end.data.entries !== lines.length) {
    check.problems.push('the manifest is cut off or damaged');
    return;
  }
  check.sessions = end.data.sessions;
  const listed = new Set<string>();
  for (const raw of lines) {
    const line = manifestLineSchema.safeParse(parseJson(Buffer.from(raw)));
    if (!line.success) {
      check.problems.push('the manifest has a damaged line');
      return;
    }
    const { path, type, size, sha256 } = line.data;
    listed.add(path);
    const found = seen.get(path);
    if (!found) check.problems.push(`${path}: listed in the manifest, missing from the backup`);
    else if (found.type !== type || found.size !== size || found.sha256 !== sha256) check.problems.push(`${path}: its bytes differ from the manifest's checksum`);
  }
  for (const path of seen.keys()) if (!listed.has(path)) check.problems.push(`${path}: in the backup, not in the manifest`);
}

/** `entity-memory verify`: every byte against the manifest, nothing written. */
export function verifyBackup(path: string, onProgress?: (entries: number, bytes: number) => void): Promise<BackupCheck> {
  if (!existsSync(path)) throw new BackupError(`no backup at ${path}`);
  return readBackup(path, null, onProgress);
}

export interface RestoreSummary extends BackupCheck {
  dataDir: string;
}

/**
 * `entity-memory restore <backup> --data <dir>`: into a new directory (a missing or empty one),
 * written beside it first and renamed when every entry matched the manifest, so a bad backup
 * leaves nothing. Each user's registry journal then names every session, so the store's start-up
 * reads each from its meta.json (DESIGN §4.3) and the registry agrees with the repositories,
 * which were copied after the registry's cut.
 */
export async function restoreBackup(path: string, dataDir: string, onProgress?: (entries: number, bytes: number) => void): Promise<RestoreSummary> {
  if (!existsSync(path)) throw new BackupError(`no backup at ${path}`);
  const target = resolve(dataDir);
  if (existsSync(target) && readdirSync(target).length > 0) throw new BackupError(`${target} is not empty: restore writes only into a new or empty directory`);
  const staging = join(dirname(target), `.${basename(target)}.restoring-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  try {
    const check = await readBackup(path, (rel, type, body) => writeEntry(staging, rel, type, body), onProgress);
    if (check.problems.length > 0) throw new BackupError(`the backup is damaged; nothing was restored:\n${check.problems.slice(0, 20).join('\n')}`);
    journalEverySession(staging);
    syncFileSystem(staging);
    if (existsSync(target)) rmdirSync(target);
    await rename(staging, target);
    return { ...check, dataDir: target };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

async function writeEntry(root: string, rel: string, type: 'file' | 'directory', body: AsyncIterable<Buffer>): Promise<void> {
  const abs = join(root, rel);
  if (type === 'directory') {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
    for await (const _chunk of body); // eslint-disable-line @typescript-eslint/no-unused-vars
    return;
  }
  mkdirSync(dirname(abs), { recursive: true, mode: 0o700 });
  // 'wx': a path given twice, or through a name that is not a plain directory, is refused
  const stream = createWriteStream(abs, { flags: 'wx', mode: 0o600 });
  const closed = once(stream, 'close');
  closed.catch(() => undefined); // awaited below; handled now so an early error is no unhandled rejection
  for await (const chunk of body) if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), closed]);
  stream.end();
  await closed;
  if (stream.errored) throw stream.errored;
}

/** `.index-journal` of each restored user: every session directory and every id the registry's snapshot names. */
function journalEverySession(root: string): void {
  const users = join(root, 'users');
  if (!existsSync(users)) return;
  for (const user of readdirSync(users)) {
    const sessionsDir = join(users, user, 'sessions');
    if (!existsSync(sessionsDir)) continue;
    const ids = new Set<string>();
    // sessions/<sid>/ and sessions/projects/<pid>/<sid>/
    const parents = [sessionsDir, ...childDirectories(join(sessionsDir, 'projects')).map((project) => join(sessionsDir, 'projects', project))];
    for (const parent of parents) for (const name of childDirectories(parent)) if (isSessionId(name)) ids.add(name);
    try {
      const index = JSON.parse(readFileSync(join(sessionsDir, 'index.json'), 'utf8')) as Record<string, unknown>;
      for (const id of Object.keys(index)) if (isSessionId(id)) ids.add(id);
    } catch {
      // no snapshot (or a damaged one): start-up rebuilds the registry from every meta.json
    }
    if (ids.size > 0) writeFileSync(join(sessionsDir, '.index-journal'), `${[...ids].join('\n')}\n`, { mode: 0o600, flag: 'a' });
  }
}

/** One syncfs for the whole restore rather than an fsync per file (a million files at 100,000 sessions). */
function syncFileSystem(dir: string): void {
  try {
    execFileSync('sync', ['-f', dir], { stdio: 'ignore' });
  } catch {
    execFileSync('sync', { stdio: 'ignore' });
  }
}

async function collect(stream: AsyncIterable<Buffer>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += chunk.length;
    if (length > limit) throw new BackupError('an entry of the backup is larger than it may be');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}
