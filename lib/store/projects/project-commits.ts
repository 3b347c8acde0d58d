import { stat } from 'node:fs/promises';
import { InvalidInputError, PreconditionError } from '../errors.js';
import { realpathOrNull } from './allowed-roots.js';
import { AGENT_EMAIL, parseAgentTrailers } from './commit-message.js';
import { GitCommandError, runGit, type GitResult } from '../git/git-cli.js';
import { readHead } from './commit-plumbing.js';
import { assertRepoSafe, locateGitDirs } from '../git/repo-safety.js';
import { secondsToMs } from '../time.js';

/** The agent commits of a project for the timeline (entity-memory.zh.md §4.3), newest first. */

export interface ProjectCommit {
  sha: string;
  /** The subject line. */
  message: string;
  /** `agent (<model> via Entity Memory)`; older commits say OpenProgram. */
  author: string;
  /** Commit time in milliseconds. */
  createdAt: number;
  sessionId: string | null;
  turn: number | null;
}

const FIELD = '\x1f';
const RECORD = '\x1e';
const MAX_LIMIT = 500;

/**
 * At most `limit` (1–500, default 50) commits reachable from HEAD whose author is the agent.
 * A folder that is not a repository, or has no commits yet, has none; a missing folder, or a
 * `.git` that git cannot read, is a PreconditionError.
 */
export async function projectCommits(projectPath: string, options: { limit?: number } = {}): Promise<ProjectCommit[]> {
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new InvalidInputError(`limit must be between 1 and ${MAX_LIMIT}`);
  const real = await realpathOrNull(projectPath);
  if (!real || !(await stat(real)).isDirectory()) throw new PreconditionError(`the project folder ${projectPath} is missing`);
  if (!(await locateGitDirs(real))) return [];
  await assertRepoSafe(real);
  const { stdout } = await readLog(real, limit);
  const commits: ProjectCommit[] = [];
  for (const record of stdout.toString('utf8').split(RECORD)) {
    const fields = record.replace(/^\n/, '').split(FIELD);
    if (fields.length < 6) continue;
    const [sha = '', name = '', email = '', time = '0', subject = '', trailers = ''] = fields;
    if (email !== AGENT_EMAIL) continue;
    commits.push({ sha, message: subject, author: name, createdAt: secondsToMs(Number(time)), ...parseAgentTrailers(trailers) });
  }
  return commits;
}

/** The agent's part of `git log`; a repository git cannot read is the user's to repair (412), not a crash. */
async function readLog(real: string, limit: number): Promise<GitResult> {
  try {
    if ((await readHead(real)).head === null) return { stdout: Buffer.alloc(0), stderr: '', code: 0 };
    const format = ['%H', '%an', '%ae', '%ct', '%s', '%(trailers:only,unfold)'].join('%x1f') + '%x1e';
    return await runGit(real, [
      'log',
      `--max-count=${limit}`,
      // git matches --author against "Name <email>"; anchor on the address.
      `--author=<${AGENT_EMAIL.replace(/\./g, '\\.')}>`,
      `--format=${format}`,
      'HEAD',
      '--',
    ]);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    throw new PreconditionError(`git cannot read the history of ${real}: ${error.stderr.trim().split('\n')[0] ?? ''}`);
  }
}
