/**
 * Which turns a bisect runs over (DESIGN §14): the turns that made project commits, in order. A
 * turn without one keeps the code of the one before, so `--good` and `--bad` name any turn and
 * stand for the last turn with commits at or before it (or the project before the session).
 */

/** A turn as the timeline lists it: its own project commit, or an imported turn's linked ones. */
export interface TimelineTurnCommits {
  turn: number;
  /** the session commit of the turn */
  sha: string;
  projectCommit: string | null;
  linkedCommits: readonly { sha: string }[];
}

/** A turn that changed the project: its commits oldest first; the code after it is the last. */
export interface CodeTurn {
  turn: number;
  sha: string;
  commits: string[];
}

export interface BisectRange {
  turns: CodeTurn[];
  /** position in `turns` taken to be good; -1: the project before the session */
  good: number;
  /** position in `turns` of the bad end, to be checked */
  bad: number;
}

/** Why a bisect cannot start: said to the user as it is. */
export class BisectRangeError extends Error {
  constructor(
    message: string,
    readonly reason: 'no_project_commits' | 'bad_turn' | 'empty_range',
  ) {
    super(message);
    this.name = 'BisectRangeError';
  }
}

export function codeTurns(turns: readonly TimelineTurnCommits[]): CodeTurn[] {
  return [...turns]
    .sort((a, b) => a.turn - b.turn)
    .map((turn) => ({ turn: turn.turn, sha: turn.sha, commits: turn.projectCommit ? [turn.projectCommit] : turn.linkedCommits.map((commit) => commit.sha) }))
    .filter((turn) => turn.commits.length > 0);
}

/** The last position whose turn is at or before `turn`; -1 when none. */
function lastAtOrBefore(turns: readonly CodeTurn[], turn: number): number {
  let position = -1;
  while (position + 1 < turns.length && turns[position + 1]!.turn <= turn) position++;
  return position;
}

/**
 * The range for `--good` / `--bad` (turn numbers, 0 to the session's last; default: the project
 * before the session and the last turn), as positions among the turns with project commits.
 */
export function bisectRange(sessionId: string, timeline: readonly TimelineTurnCommits[], options: { good?: number; bad?: number }): BisectRange {
  const turns = codeTurns(timeline);
  if (turns.length === 0) {
    throw new BisectRangeError(`session ${sessionId} has no project commits: no turn changed a project's files, so there is nothing to bisect`, 'no_project_commits');
  }
  const lastTurn = Math.max(...timeline.map((turn) => turn.turn));
  for (const [flag, value] of [['--good', options.good], ['--bad', options.bad]] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0 || value > lastTurn)) {
      throw new BisectRangeError(`${flag} must be a turn of the session, 0 to ${lastTurn}`, 'bad_turn');
    }
  }
  const goodTurn = options.good ?? 0;
  const badTurn = options.bad ?? lastTurn;
  if (goodTurn >= badTurn) throw new BisectRangeError(`--good (turn ${goodTurn}) must come before --bad (turn ${badTurn})`, 'bad_turn');
  const good = lastAtOrBefore(turns, goodTurn);
  const bad = lastAtOrBefore(turns, badTurn);
  if (bad <= good) {
    throw new BisectRangeError(`no turn from ${goodTurn + 1} to ${badTurn} made a project commit: the code is the same at both ends`, 'empty_range');
  }
  return { turns, good, bad };
}
