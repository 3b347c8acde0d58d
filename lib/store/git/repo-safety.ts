import { lstat, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { ForbiddenPathError, PreconditionError } from '../errors.js';
import { fileSignature } from '../../fs/file-signature.js';
import { runGit, splitNul } from './git-cli.js';
import { isInsideAny, realpathOrNull } from '../../fs/real-path.js';
import { listGitlinks } from './gitlinks.js';

/**
 * Refuse a project repository whose own config could make git run a program (DESIGN §2).
 * The `-c` overrides of git-cli.ts neutralise hooks, fsmonitor, pagers and external diff, but
 * not everything (a `filter.<x>.clean` runs on `git add`, `include.path` pulls in more config),
 * so those repositories are refused before any git command touches their working tree.
 */

export interface GitDirs {
  /** Where HEAD, the index and this worktree's refs live. */
  gitDir: string;
  /** Where objects, shared refs and `config` live (differs for linked worktrees). */
  commonDir: string;
}

/**
 * The git directories of `projectPath` itself (never an enclosing repo), or null when the folder
 * has no `.git`. A `.git` file (linked worktree, submodule) is followed by hand, not by git.
 */
export async function locateGitDirs(projectPath: string): Promise<GitDirs | null> {
  const dotGit = join(projectPath, '.git');
  let info;
  try {
    info = await lstat(dotGit);
  } catch {
    return null;
  }
  let gitDir: string;
  if (info.isDirectory()) {
    gitDir = dotGit;
  } else if (info.isFile()) {
    const text = (await readFile(dotGit, 'utf8')).trim();
    const match = /^gitdir:\s*(.+)$/m.exec(text);
    if (!match?.[1]) return null;
    gitDir = resolve(projectPath, match[1].trim());
  } else {
    // A symlinked .git could point anywhere; treat it like any other path and resolve it.
    const real = await realpathOrNull(dotGit);
    if (!real) return null;
    gitDir = real;
  }
  let commonDir = gitDir;
  try {
    const common = (await readFile(join(gitDir, 'commondir'), 'utf8')).trim();
    if (common) commonDir = isAbsolute(common) ? common : resolve(gitDir, common);
  } catch {
    // Not a linked worktree.
  }
  return { gitDir, commonDir };
}

/**
 * Does `dirs` hold a repository git will open (a HEAD naming a ref or a commit, objects/ and
 * refs/)? An empty or half-deleted `.git` is not one: git answers "not a git repository".
 */
async function isUsableGitDir(dirs: GitDirs): Promise<boolean> {
  const head = await readFile(join(dirs.gitDir, 'HEAD'), 'utf8').catch(() => null);
  if (head === null || !/^(ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\s*$/.test(head)) return false;
  for (const name of ['objects', 'refs']) {
    const info = await stat(join(dirs.commonDir, name)).catch(() => null);
    if (!info?.isDirectory()) return false;
  }
  return true;
}

/** The refusal of a `.git` that git cannot open. */
function unusableRepoMessage(projectPath: string): string {
  return `${projectPath} has a .git that is not a usable git repository (no valid HEAD, objects or refs); repair it or remove it`;
}

const FALSE_VALUES = new Set(['false', 'no', 'off', '0', '']);
const BOOLEAN_VALUES = new Set([...FALSE_VALUES, 'true', 'yes', 'on', '1']);

/** Whole sections that only exist to name programs or pull in other config. */
const FORBIDDEN_SECTIONS = new Set(['filter', 'include', 'includeif', 'uploadpack', 'receivepack', 'hook']);

/** Exact `section.key` names (no subsection) that hold a command. */
const FORBIDDEN_KEYS = new Set([
  'core.sshcommand',
  'core.editor',
  'core.gitproxy',
  'core.askpass',
  'core.pager',
  'core.alternaterefscommand',
  // Moves the working tree elsewhere: writes would land outside the checked folder.
  'core.worktree',
  'credential.helper',
  'diff.external',
  'sequence.editor',
  'gpg.program',
]);

/** The last part of `section.<sub>.key` names that hold a command in any section. */
const FORBIDDEN_LEAVES = new Set([
  'command',
  'cmd',
  'driver',
  'textconv',
  'program',
  'helper',
  'sshcommand',
  'uploadpack',
  'receivepack',
  'proxycommand',
  'packobjectshook',
]);

/**
 * Why a config entry is refused, or null when it is harmless. `key` is as `git config --list`
 * prints it: section and variable lower-cased, the subsection as written.
 */
export function forbiddenConfigReason(key: string, value: string | null): string | null {
  const parts = key.split('.');
  const section = (parts[0] ?? '').toLowerCase();
  const leaf = (parts[parts.length - 1] ?? '').toLowerCase();
  const plain = parts.length === 2 ? `${section}.${leaf}` : null;
  const v = (value ?? '').trim().toLowerCase();
  if (FORBIDDEN_SECTIONS.has(section)) return `${key} (${section}.* can run commands or load other config)`;
  if (plain === 'core.fsmonitor') {
    // A boolean means git's own daemon (and we pass core.fsmonitor=false); anything else is a program.
    return BOOLEAN_VALUES.has(v) ? null : `${key} (names a program)`;
  }
  if (section === 'pager') return BOOLEAN_VALUES.has(v) ? null : `${key} (names a program)`;
  if (plain && FORBIDDEN_KEYS.has(plain)) {
    // An empty helper/command resets it to nothing.
    return v === '' ? null : `${key} (names a program)`;
  }
  if (parts.length >= 2 && FORBIDDEN_LEAVES.has(leaf)) return v === '' ? null : `${key} (names a program)`;
  if (section === 'submodule' && leaf === 'update' && v.startsWith('!')) return `${key} (runs a command)`;
  // A transport allowed here could run a command (ext::) on a lazy fetch of a missing object.
  if (section === 'protocol' && leaf === 'allow' && v !== 'never') return `${key} (allows a transport that can run commands)`;
  if (section === 'remote' && (leaf === 'url' || leaf === 'pushurl') && v.startsWith('ext::')) return `${key} (an ext:: transport runs a command)`;
  if (section === 'url' && key.toLowerCase().startsWith('url.ext::')) return `${key} (rewrites URLs to an ext:: transport, which runs a command)`;
  return null;
}

export interface ConfigIssue {
  key: string;
  reason: string;
  file: string;
}

/** Parse `git config --list --null`: entries `key\nvalue\0`, or `key\0` for a bare boolean. */
function parseConfigList(buffer: Buffer): Array<{ key: string; value: string | null }> {
  return splitNul(buffer).map((entry) => {
    const nl = entry.indexOf('\n');
    return nl < 0 ? { key: entry, value: null } : { key: entry.slice(0, nl), value: entry.slice(nl + 1) };
  });
}

interface CacheEntry {
  signature: string;
  issues: ConfigIssue[];
}

// Checking runs once per turn start and end; a config file is only re-read when it changed.
const configCache = new Map<string, CacheEntry>();
const CONFIG_CACHE_LIMIT = 1_000;

async function checkConfigFile(cwd: string, file: string): Promise<ConfigIssue[]> {
  const signature = await fileSignature(file);
  if (signature === null) return [];
  const cached = configCache.get(file);
  if (cached && cached.signature === signature) return cached.issues;
  // `--file` reads that one file; includes are not followed (they are refused instead).
  const { stdout } = await runGit(cwd, ['config', '--file', file, '--list', '--null']);
  const issues: ConfigIssue[] = [];
  for (const { key, value } of parseConfigList(stdout)) {
    const reason = forbiddenConfigReason(key, value);
    if (reason) issues.push({ key, reason, file });
  }
  if (configCache.size >= CONFIG_CACHE_LIMIT) configCache.clear();
  configCache.set(file, { signature, issues });
  return issues;
}

/** How deep nested submodules are followed; git itself never recurses with our flags. */
const MAX_NESTING = 4;

/**
 * Every command-running entry in the repository's own config files and in those of its
 * checked-out submodules (empty when safe). git never recurses into them with the runner's
 * flags, but `git add` reads a submodule it is pointed at, and the user's own git does too.
 */
export async function findConfigIssues(projectPath: string, dirs?: GitDirs | null, depth = 0): Promise<ConfigIssue[]> {
  const found = dirs === undefined ? await locateGitDirs(projectPath) : dirs;
  if (!found) return [];
  const files = [join(found.commonDir, 'config')];
  // Per-worktree config (extensions.worktreeConfig) is read by git too.
  files.push(join(found.gitDir, 'config.worktree'));
  const issues: ConfigIssue[] = [];
  for (const file of files) issues.push(...(await checkConfigFile(projectPath, file)));
  if (depth >= MAX_NESTING) return issues;
  for (const link of await listGitlinks(projectPath, join(found.gitDir, 'index'))) {
    const nested = join(projectPath, link);
    const nestedDirs = await locateGitDirs(nested);
    if (!nestedDirs) continue; // not checked out: nothing there for git to read
    for (const issue of await findConfigIssues(nested, nestedDirs, depth + 1)) {
      issues.push({ ...issue, reason: `in submodule ${link}: ${issue.reason}` });
    }
  }
  return issues;
}

/** The refusal message for a set of issues. */
function describeConfigIssues(projectPath: string, issues: readonly ConfigIssue[]): string {
  const keys = issues.map((i) => i.reason).join('; ');
  return `refusing to run git in ${projectPath}: its repository config can run commands: ${keys}. ` +
    'Remove these settings from the repository config to use it as a project.';
}

/**
 * Throw ForbiddenPathError when the repository of `projectPath` is unsafe: config that can run
 * programs, or (when `allowedRoots` is given) git directories outside the allowed roots, where
 * a commit would write into somebody else's repository; PreconditionError when its `.git` is
 * no repository git can open.
 */
export async function assertRepoSafe(projectPath: string, options: { allowedRoots?: readonly string[] } = {}): Promise<GitDirs | null> {
  const dirs = await locateGitDirs(projectPath);
  if (!dirs) return null;
  if (!(await isUsableGitDir(dirs))) throw new PreconditionError(unusableRepoMessage(projectPath));
  if (options.allowedRoots) {
    for (const dir of [dirs.gitDir, dirs.commonDir]) {
      const real = await realpathOrNull(dir);
      if (!real || !(await isInsideAny(real, options.allowedRoots))) {
        throw new ForbiddenPathError(
          `refusing the repository of ${projectPath}: its git directory ${dir} is outside the allowed roots (${options.allowedRoots.join(', ')})`,
        );
      }
    }
  }
  const issues = await findConfigIssues(projectPath, dirs);
  if (issues.length > 0) throw new ForbiddenPathError(describeConfigIssues(projectPath, issues));
  return dirs;
}
