import { runGit } from '../git/git-cli.js';
import type { RawCommit } from './commit-log.js';
import { parseNodeFileName } from './session-files.js';

/** A commit of the first-parent line with the node ids it added to history/, by seq. */
export interface TurnLogEntry extends RawCommit {
  addedNodeIds: string[];
}

const FIELD = '\x1f';
const RECORD = '\x1e';

/**
 * `limit` commits of the first-parent line from `start`, newest first, each with the history
 * files it added, in one git process. isomorphic-git resolves every history tree through its
 * delta chain in JavaScript, which costs ~10 ms a commit once a long session is packed.
 */
export async function readTurnLog(repoDir: string, start: string, limit: number): Promise<TurnLogEntry[]> {
  const { stdout, code } = await runGit(
    repoDir,
    [
      '-c', 'core.quotePath=false',
      // No pathspec and no --diff-filter: either would also drop commits (session init) from the log.
      'log', '--first-parent', `--max-count=${limit}`, '--no-renames', '--name-status', '-z',
      `--format=${RECORD}%H${FIELD}%P${FIELD}%T${FIELD}%ct${FIELD}%B${FIELD}`,
      start, '--',
    ],
    { okCodes: [0, 128] },
  );
  if (code !== 0) return [];
  const entries: TurnLogEntry[] = [];
  for (const record of stdout.toString('utf8').split(RECORD)) {
    const fields = record.split(FIELD);
    if (fields.length < 6) continue;
    const [sha = '', parents = '', tree = '', time = '0', body = ''] = fields;
    // After the format: NUL, newline, then status and path fields, each NUL-terminated.
    const changes = fields.slice(5).join(FIELD).replace(/^\0?\n?/, '').split('\0');
    const names: string[] = [];
    for (let i = 0; i + 1 < changes.length; i += 2) {
      if (changes[i] === 'A' && changes[i + 1]!.startsWith('history/')) names.push(changes[i + 1]!);
    }
    const added = names
      .map((path) => parseNodeFileName(path.slice('history/'.length)))
      .filter((parsed) => parsed !== null)
      .sort((a, b) => a.seq - b.seq)
      .map((parsed) => parsed.id);
    entries.push({ sha, parents: parents === '' ? [] : parents.split(' '), tree, timestamp: Number(time), message: body.replace(/\n$/, ''), addedNodeIds: added });
  }
  return entries;
}

/** Commits on HEAD's first-parent line (the turns plus session init), or null when git cannot say. */
export async function countFirstParent(repoDir: string, head: string): Promise<number | null> {
  const { stdout, code } = await runGit(repoDir, ['rev-list', '--first-parent', '--count', head], { okCodes: [0, 128] });
  const count = Number(stdout.toString('latin1').trim());
  return code === 0 && Number.isInteger(count) ? count : null;
}
