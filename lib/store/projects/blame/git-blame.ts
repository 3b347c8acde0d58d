import { ForbiddenPathError, InvalidInputError, NotFoundError, PayloadTooLargeError, PreconditionError } from '../../errors.js';
import { GitCommandError, runGit } from '../../git/git-cli.js';
import { AGENT_EMAIL, parseAgentTrailers } from '../commit-message.js';
import { normalizeProjectPath } from '../project-paths.js';

/**
 * `git blame` of one file of a project repo at a revision (DESIGN §14 "Blame"): per line the
 * commit that last changed it, and per distinct commit who made it (the agent, with our
 * trailers, or a person). Three git processes whatever the file's size: the blob, the blame,
 * one `log --no-walk` for the trailers of every distinct commit.
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

export interface GitBlameCommit {
  sha: string;
  by: 'agent' | 'person';
  /** the model the agent commit names (`agent (<model> via Entity Memory)`), else its author name */
  agent: string | null;
  sessionId: string | null;
  turn: number | null;
}

export interface GitBlame {
  /** the commit `rev` named */
  rev: string;
  path: string;
  lines: GitBlameLine[];
  commits: Map<string, GitBlameCommit>;
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

/** Callers checked the folder (a repository that is safe to run git in: projectFolder). */
export async function gitBlame(projectPath: string, path: string, rev: string | undefined): Promise<GitBlame> {
  const file = blamePath(path);
  const commit = await resolveCommit(projectPath, rev ?? 'HEAD');
  await checkBlob(projectPath, commit, file);
  const blame = await runGit(projectPath, ['blame', '--porcelain', commit, '--', file]);
  const { lines, authors } = parsePorcelain(blame.stdout.toString('utf8'));
  const commits = await readCommits(projectPath, authors);
  return { rev: commit, path: file, lines, commits };
}

/** The commit a revision names; a malformed one BAD_REQUEST, an unknown one NOT_FOUND. */
export async function resolveCommit(cwd: string, rev: string): Promise<string> {
  if (!REV_PATTERN.test(rev)) throw new InvalidInputError(`not a revision: ${JSON.stringify(rev)}`);
  const { stdout, code } = await runGit(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { okCodes: [0, 1, 128] });
  const sha = stdout.toString('utf8').trim();
  if (code !== 0 || !/^[0-9a-f]{40,64}$/.test(sha)) throw new NotFoundError(`no commit ${rev} in the project`);
  return sha;
}

/** The path is a text file at that commit, of a size blame can show; else a clear refusal. */
async function checkBlob(cwd: string, commit: string, file: string): Promise<void> {
  const { stdout } = await runGit(cwd, ['cat-file', '--batch'], { input: `${commit}:${file}\n` });
  const headerEnd = stdout.indexOf(10);
  const header = stdout.subarray(0, headerEnd < 0 ? stdout.length : headerEnd).toString('utf8');
  const [, type, size] = header.split(' ');
  if (type !== 'blob') throw new NotFoundError(`no file ${file} at ${commit.slice(0, 12)}${type === 'tree' ? ' (it is a folder)' : ''}`);
  if (Number(size) > MAX_BLAME_BYTES) throw new PayloadTooLargeError(`${file} is ${size} bytes; blame shows files of at most ${MAX_BLAME_BYTES} bytes`);
  const content = stdout.subarray(headerEnd + 1, headerEnd + 1 + Number(size));
  // git's own test: a NUL in the first 8,000 bytes makes a file binary.
  if (content.subarray(0, 8000).includes(0)) throw new InvalidInputError(`${file} is a binary file: blame shows text files only`);
  let lines = 0;
  for (let at = content.indexOf(10); at >= 0; at = content.indexOf(10, at + 1)) lines++;
  if (content.length > 0 && content[content.length - 1] !== 10) lines++;
  if (lines > MAX_BLAME_LINES) throw new PayloadTooLargeError(`${file} has ${lines} lines; blame shows files of at most ${MAX_BLAME_LINES.toLocaleString('en')} lines`);
}

/** `--porcelain`: a header `<sha> <orig> <final> [<count>]`, the commit's fields the first time it appears, then `\t<line>`. */
function parsePorcelain(output: string): { lines: GitBlameLine[]; authors: Map<string, { name: string; email: string }> } {
  const lines: GitBlameLine[] = [];
  const authors = new Map<string, { name: string; email: string }>();
  let sha = '';
  let finalLine = 0;
  let name = '';
  for (const row of output.split('\n')) {
    if (row.startsWith('\t')) {
      lines.push({ line: finalLine, text: row.slice(1), sha });
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
  const agentShas = [...authors].filter(([, author]) => author.email === AGENT_EMAIL).map(([sha]) => sha);
  for (const [sha, author] of authors) {
    if (author.email !== AGENT_EMAIL) commits.set(sha, { sha, by: 'person', agent: null, sessionId: null, turn: null });
    else commits.set(sha, { sha, by: 'agent', agent: modelOfAgentName(author.name), sessionId: null, turn: null });
  }
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
    const commit = commits.get(sha);
    if (commit) Object.assign(commit, parseAgentTrailers(trailers));
  }
  return commits;
}

/** `agent (<model> via Entity Memory)` (or via OpenProgram, in older repos) → the model; anything else as it is. */
export function modelOfAgentName(name: string): string {
  const match = /^agent \((.*?) ?via (?:Entity Memory|OpenProgram)\)$/.exec(name);
  return match ? (match[1] || 'agent') : name;
}
