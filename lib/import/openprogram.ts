import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { childDirectories } from '../fs/child-directories.js';
import { isSessionId, type ImportSessionResult, type StateSessionInput } from '../store/index.js';
import { emptyReport, NotThisFormatError, type ImportReport, type SkippedLine } from './types.js';

/**
 * An OpenProgram state directory (`~/.openprogram`, FORMAT.md): `sessions/` with one git repo
 * per session (default layout `sessions/<sid>`, project layout `sessions/projects/<pid>/<sid>`,
 * and the repos `locations.json` names, such as the seeds' older `<project>/.openprogram/sessions/<sid>`),
 * and `projects/projects.json`. Each session is moved in whole by the store (importStateSession):
 * same id, same DAG, its git history and attachments as they are.
 */

export interface StateDirTarget {
  importStateSession(input: StateSessionInput): Promise<ImportSessionResult>;
}

/** One session repo found in a state directory, as the store's importStateSession takes it. */
export interface FoundSession extends StateSessionInput {
  /** where it is, relative to the state directory (for the report) */
  shown: string;
}

export interface StateDirInventory {
  stateDir: string;
  sessions: FoundSession[];
  skipped: SkippedLine[];
}

const DEFAULT_PROJECT = 'default';

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The state directory a folder is, or is the `sessions/` folder of; null when it has none of
 * its marks (a `sessions/` folder, `index.json`, `locations.json`, `projects/projects.json`).
 */
export function stateDirOf(dir: string): string | null {
  const root = resolve(dir);
  if (isDir(join(root, 'sessions')) || existsSync(join(root, 'projects', 'projects.json'))) return root;
  if (basename(root) === 'sessions' && (existsSync(join(root, 'index.json')) || existsSync(join(root, 'locations.json')))) return dirname(root);
  return null;
}

function isInsideLexically(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Whether a folder given to import is meant as an OpenProgram state directory. */
export function looksLikeStateDir(dir: string): boolean {
  return stateDirOf(dir) !== null;
}

/** A repo folder with meta.json naming this id and a .git folder, or why not. */
function checkRepo(dir: string, id: string): string | null {
  const meta = readJson(join(dir, 'meta.json'));
  if (!isObject(meta)) return 'its meta.json is missing or not a JSON object';
  if (meta['id'] !== id) return `its meta.json names ${JSON.stringify(meta['id'])}, not ${id}`;
  if (!isDir(join(dir, '.git'))) return 'it has no .git folder (not a session repository)';
  return null;
}

function projectOf(meta: unknown): string {
  return isObject(meta) && typeof meta['project_id'] === 'string' && meta['project_id'] !== '' ? meta['project_id'] : DEFAULT_PROJECT;
}

/** The recovery records of a session: beside its repo, or in the state directory's `sessions/.file-recovery`. */
function recoveryOf(repoDir: string, sessionsDir: string, id: string): string | null {
  for (const candidate of [join(dirname(repoDir), '.file-recovery', id), join(sessionsDir, '.file-recovery', id)]) if (isDir(candidate)) return candidate;
  return null;
}

/**
 * Every session of a state directory, with its project and recovery records. A folder that is
 * not a state directory at all (no session repository anywhere in it) is refused whole.
 */
export function inventoryStateDir(dir: string, options: { confined?: boolean } = {}): StateDirInventory {
  const stateDir = stateDirOf(dir);
  if (!stateDir) throw new NotThisFormatError('not an OpenProgram state directory: it has no sessions/ folder, index.json or projects/projects.json');
  const sessionsDir = join(stateDir, 'sessions');
  const skipped: SkippedLine[] = [];
  const found = new Map<string, { repoDir: string; shown: string }>();
  const shownOf = (path: string): string => {
    const rel = relative(stateDir, path);
    return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
  };
  const consider = (repoDir: string, id: string, named = false): void => {
    // A folder without meta.json is no session (the seeds' validity rule), unless locations.json names it.
    if (!named && !existsSync(join(repoDir, 'meta.json'))) return;
    const shown = shownOf(repoDir);
    const why = checkRepo(repoDir, id);
    if (why) skipped.push({ file: shown, line: 0, reason: `not imported: ${why}` });
    else if (!found.has(id)) found.set(id, { repoDir, shown });
  };
  for (const name of childDirectories(sessionsDir)) {
    if (name === 'projects' || !isSessionId(name)) continue;
    consider(join(sessionsDir, name), name);
  }
  for (const projectId of childDirectories(join(sessionsDir, 'projects'))) {
    for (const name of childDirectories(join(sessionsDir, 'projects', projectId))) if (isSessionId(name)) consider(join(sessionsDir, 'projects', projectId, name), name);
  }
  const locations = readJson(join(sessionsDir, 'locations.json'));
  if (isObject(locations)) {
    for (const [id, path] of Object.entries(locations)) {
      if (found.has(id)) continue;
      if (!isSessionId(id) || typeof path !== 'string' || !isAbsolute(path)) {
        skipped.push({ file: 'sessions/locations.json', line: 0, reason: `entry ${JSON.stringify(id)} is not a session id and an absolute path` });
      } else if (options.confined && !isInsideLexically(resolve(path), stateDir)) {
        // An upload names folders of its own machine, or probes the server's: neither is looked
        // at, and the answer is the same whether such a folder exists here or not.
        skipped.push({ file: 'sessions/locations.json', line: 0, reason: `session ${id}: ${path} is not inside the uploaded state directory: not followed` });
      } else if (!isDir(path)) {
        skipped.push({ file: 'sessions/locations.json', line: 0, reason: `session ${id}: its folder ${path} does not exist` });
      } else consider(resolve(path), id, true);
    }
  }
  const index = readJson(join(sessionsDir, 'index.json'));
  if (isObject(index)) {
    for (const id of Object.keys(index)) {
      if (!found.has(id) && !skipped.some((entry) => entry.reason.includes(id))) skipped.push({ file: 'sessions/index.json', line: 0, reason: `session ${id} is listed but its repository was not found` });
    }
  }
  if (found.size === 0 && skipped.length === 0) {
    throw new NotThisFormatError('not an OpenProgram state directory: no session repository (a folder with meta.json and .git) under sessions/');
  }

  const projectsFile = readJson(join(stateDir, 'projects', 'projects.json'));
  const projects = isObject(projectsFile) ? projectsFile : {};
  const sessions: FoundSession[] = [];
  for (const [id, { repoDir, shown }] of found) {
    const projectId = projectOf(readJson(join(repoDir, 'meta.json')));
    let project: FoundSession['project'] = null;
    if (projectId !== DEFAULT_PROJECT) {
      const entry = projects[projectId];
      if (isObject(entry) && typeof entry['path'] === 'string') {
        project = { name: typeof entry['name'] === 'string' ? entry['name'] : projectId, path: entry['path'] };
      } else {
        // The seeds' older layout: <project>/.openprogram/sessions/<sid> names its project folder.
        const legacy = /^(.*)[\\/]\.openprogram[\\/]sessions[\\/][^\\/]+$/.exec(repoDir);
        if (legacy?.[1]) project = { name: basename(legacy[1]), path: legacy[1] };
      }
    }
    sessions.push({ id, repoDir, shown, projectId, project, sourceRoot: stateDir, recoveryDir: recoveryOf(repoDir, sessionsDir, id) });
  }
  return { stateDir, sessions, skipped };
}

export interface StateDirOptions {
  /**
   * an upload unpacked here: locations.json is followed only inside `dir` (the unpacked tree has
   * no symbolic links, so a lexical check is exact)
   */
  confined?: boolean;
  /** the name of what was given (a folder, an uploaded zip), for the report */
  name?: string;
  onSession?: () => void;
  /** sessions moved at once; default 4 */
  concurrency?: number;
}

/** Import every session of a state directory; a session that cannot be moved in is reported, the rest imported. */
export async function importStateDir(target: StateDirTarget, dir: string, options: StateDirOptions = {}): Promise<ImportReport> {
  const report = emptyReport();
  const name = options.name ?? basename(resolve(dir));
  let inventory: StateDirInventory;
  try {
    inventory = inventoryStateDir(dir, { confined: options.confined ?? false });
  } catch (error) {
    if (!(error instanceof NotThisFormatError)) throw error;
    report.skipped.push({ file: name, line: 0, reason: `refused: ${error.message}` });
    return report;
  }
  const file = (shown: string): string => (shown.startsWith('/') ? shown : `${name}/${shown}`);
  for (const entry of inventory.skipped) report.skipped.push({ ...entry, file: file(entry.file) });
  // A few sessions at once: most of a move is git (fsck) and the disk, which overlap well.
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inventory.sessions.length) {
      const session = inventory.sessions[next++]!;
      const { shown, ...input } = session;
      try {
        const result = await target.importStateSession(input);
        report[result.outcome]++;
        report.redacted += result.redacted;
        if (result.outcome === 'added' || result.outcome === 'updated') options.onSession?.();
      } catch (error) {
        failed.push({ file: file(shown), line: 0, reason: `session ${session.id} not imported: ${(error as Error).message}` });
      }
    }
  };
  const failed: SkippedLine[] = [];
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, Math.max(1, inventory.sessions.length)) }, worker));
  // Sorted by file: the same report whichever worker finished first.
  report.skipped.push(...failed.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)));
  return report;
}
