import { ForbiddenPathError, InvalidInputError, NotFoundError, PayloadTooLargeError, PreconditionError } from '../../errors.js';
import { GitCommandError, runGit } from '../../git/git-cli.js';
import { normalizeProjectPath } from '../project-paths.js';
import { blameCache, type BlameCacheScope, type CachedBlame } from './blame-cache.js';
import { agentCommit, type GitBlameCommit } from './commit-info.js';
import { BLAME_DIFF_OPTIONS, incrementalBlame } from './incremental-blame.js';

export { modelOfAgentName, type GitBlameCommit } from './commit-info.js';

/**
 * `git blame` of one file of a project repo at a revision (DESIGN §14 "Blame"): per line the
 * commit that last changed it, and per distinct commit who made it (the agent, with our
 * trailers, or a person). With a cache scope, the blame kept for that path (blame-cache.ts) is
 * the answer when it is at that commit, and the start when it is at an ancestor: one `git log
 * -p` of the commits since (incremental-blame.ts). Otherwise three git processes whatever the
 * file's size: the blob, the blame, one `log --no-walk` for the trailers of every distinct commit.
 */

/** Larger files are refused, not paged: a gutter of more lines is no use to read, and blame cost grows with history × lines. */
export const MAX_BLAME_LINES = 20_000;
export const MAX_BLAME_BYTES = 4 * 1024 * 1024;

export interface GitBlameLine {
  /** 1-based line number in the file at `rev` */
  line: number;
  text: string;
  sha: string;
}

export interface GitBlame {
  /** the commit `rev` named */
  rev: string;
  path: string;
  lines: GitBlameLine[];
  commits: ReadonlyMap<string, GitBlameCommit>;
}

const REV_PATTERN = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/~^-]{1,200}$/;

/** A path inside the project: relative, no `..`, not in `.git`. A refusal is BAD_REQUEST (nothing is read). */
export function blamePath(path: unknown): string {
  try {
    return normalizeProjectPath(path);
  } catch (error) {
    if (error instanceof ForbiddenPathError) throw new InvalidInputError(error.message);
    throw error;
  }
}

/**
 * Callers checked the folder (a repository that is safe to run git in: projectFolder). `cache`:
 * keep and reuse blames of this repository; `atTip` (no rev asked) marks the blame the next
 * turn's starts from.
 */
export async function gitBlame(projectPath: string, path: string, rev: string | undefined, cache?: BlameCacheScope): Promise<GitBlame> {
  const file = blamePath(path);
  const commit = await resolveCommit(projectPath, rev ?? 'HEAD');
  const reading = readTextLines(projectPath, commit, file);
  // Awaited below; this keeps a refusal from being an unhandled rejection while the cache is asked.
  reading.catch(() => undefined);
  const blamed = cache ? await cachedBlame(projectPath, file, commit, reading, cache, rev === undefined) : (await reading, await fullBlame(projectPath, file, commit));
  const texts = await reading;
  const lines = blamed.lines.map((sha, i): GitBlameLine => ({ line: i + 1, text: texts[i] ?? '', sha }));
  return { rev: commit, path: file, lines, commits: blamed.commits };
}

/** The kept blame, else the kept one moved forward, else a full blame (kept). A kept one must have the file's line count. */
async function cachedBlame(cwd: string, file: string, commit: string, reading: Promise<string[]>, scope: BlameCacheScope, atTip: boolean): Promise<CachedBlame> {
  const hit = await blameCache.exact(scope, file, commit, atTip);
  if (hit && hit.lines.length === (await reading).length) return hit;
  const base = await blameCache.base(scope, file);
  // The file's lines and the log since the kept blame in parallel: two processes, one wait.
  const [texts, moved] = await Promise.all([reading, base ? incrementalBlame(cwd, file, base, commit) : null]);
  const blamed = moved && moved.lines.length === texts.length ? moved : await fullBlame(cwd, file, commit);
  blameCache.store(scope, file, blamed, atTip);
  return blamed;
}

/**
 * `git blame --porcelain` with the diff options incremental blame uses; no textconv (a
 * program from the repo's config) and no ignored revisions: each line's literal last commit.
 */
async function fullBlame(cwd: string, file: string, commit: string): Promise<CachedBlame> {
  const blame = await runGit(cwd, ['-c', 'blame.ignoreRevsFile=', 'blame', '--porcelain', '--no-textconv', ...BLAME_DIFF_OPTIONS, commit, '--', file]);
  const { lines, authors } = parsePorcelain(blame.stdout.toString('utf8'));
  const commits = await readCommits(cwd, authors);
  return { rev: commit, lines, commits };
}

/** The commit a revision names; a malformed one BAD_REQUEST, an unknown one NOT_FOUND. */
export async function resolveCommit(cwd: string, rev: string): Promise<string> {
  if (!REV_PATTERN.test(rev)) throw new InvalidInputError(`not a revision: ${JSON.stringify(rev)}`);
  const { stdout, code } = await runGit(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { okCodes: [0, 1, 128] });
  const sha = stdout.toString('utf8').trim();
  if (code !== 0 || !/^[0-9a-f]{40,64}$/.test(sha)) throw new NotFoundError(`no commit ${rev} in the project`);
  return sha;
}

/** The lines of the file at that commit, if it is a text file of a size blame can show; else a clear refusal. */
async function readTextLines(cwd: string, commit: string, file: string): Promise<string[]> {
  const { stdout } = await runGit(cwd, ['cat-file', '--batch'], { input: `${commit}:${file}\n` });
  const headerEnd = stdout.indexOf(10);
  const header = stdout.subarray(0, headerEnd < 0 ? stdout.length : headerEnd).toString('utf8');
  const [, type, size] = header.split(' ');
  if (type !== 'blob') throw new NotFoundError(`no file ${file} at ${commit.slice(0, 12)}${type === 'tree' ? ' (it is a folder)' : ''}`);
  if (Number(size) > MAX_BLAME_BYTES) throw new PayloadTooLargeError(`${file} is ${size} bytes; blame shows files of at most ${MAX_BLAME_BYTES} bytes`);
  const content = stdout.subarray(headerEnd + 1, headerEnd + 1 + Number(size));
  // git's own test: a NUL in the first 8,000 bytes makes a file binary.
  if (content.subarray(0, 8000).includes(0)) throw new InvalidInputError(`${file} is a binary file: blame shows text files only`);
  // Blame's lines: split at each newline, the last one counting without one too.
  const lines = content.length === 0 ? [] : content.toString('utf8').split('\n');
  if (content[content.length - 1] === 10) lines.pop();
  if (lines.length > MAX_BLAME_LINES) throw new PayloadTooLargeError(`${file} has ${lines.length} lines; blame shows files of at most ${MAX_BLAME_LINES.toLocaleString('en')} lines`);
  return lines;
}

/** `--porcelain`: a header `<sha> <orig> <final> [<count>]`, the commit's fields the first time it appears, then `\t<line>`. */
function parsePorcelain(output: string): { lines: string[]; authors: Map<string, { name: string; email: string }> } {
  const lines: string[] = [];
  const authors = new Map<string, { name: string; email: string }>();
  let sha = '';
  let finalLine = 0;
  let name = '';
  for (const row of output.split('\n')) {
    if (row.startsWith('\t')) {
      lines[finalLine - 1] = sha;
      continue;
    }
    const header = /^([0-9a-f]{40,64}) \d+ (\d+)/.exec(row);
    if (header) {
      sha = header[1]!;
      finalLine = Number(header[2]);
    } else if (row.startsWith('author ')) name = row.slice(7);
    else if (row.startsWith('author-mail ')) authors.set(sha, { name, email: row.slice(12).replace(/^<|>$/g, '') });
  }
  return { lines, authors };
}

const FIELD = '\x1f';
const RECORD = '\x1e';

/** Our trailers of every distinct commit, in one `git log --no-walk`. */
async function readCommits(cwd: string, authors: Map<string, { name: string; email: string }>): Promise<Map<string, GitBlameCommit>> {
  const commits = new Map<string, GitBlameCommit>();
  for (const [sha, author] of authors) commits.set(sha, agentCommit(sha, author.name, author.email, ''));
  const agentShas = [...commits.values()].filter((commit) => commit.by === 'agent').map((commit) => commit.sha);
  if (agentShas.length === 0) return commits;
  let stdout: Buffer;
  try {
    ({ stdout } = await runGit(cwd, ['log', '--no-walk=unsorted', '--stdin', `--format=%H${FIELD}%(trailers:only,unfold)${RECORD}`], { input: `${agentShas.join('\n')}\n` }));
  } catch (error) {
    if (error instanceof GitCommandError) throw new PreconditionError(`git cannot read the history of the project: ${error.stderr.trim().split('\n')[0] ?? ''}`);
    throw error;
  }
  for (const record of stdout.toString('utf8').split(RECORD)) {
    const [sha = '', trailers = ''] = record.replace(/^\n/, '').split(FIELD);
    const author = authors.get(sha);
    if (author) commits.set(sha, agentCommit(sha, author.name, author.email, trailers));
  }
  return commits;
}
