import { describe, expect, it } from 'vitest';
import { bisectRange, BisectRangeError, codeTurns, type TimelineTurnCommits } from './turn-range.js';

const sha = (n: number): string => n.toString(16).padStart(40, '0');

/** Turns 1..count, newest first as the timeline gives them; `withCommit` says which made a project commit. */
function timeline(count: number, withCommit: (turn: number) => boolean): TimelineTurnCommits[] {
  return Array.from({ length: count }, (_, i) => count - i).map((turn) => ({
    turn,
    sha: sha(1000 + turn),
    projectCommit: withCommit(turn) ? sha(turn) : null,
    linkedCommits: [],
  }));
}

function refusal(run: () => unknown): BisectRangeError {
  try {
    run();
  } catch (error) {
    if (error instanceof BisectRangeError) return error;
    throw error;
  }
  throw new Error('no refusal');
}

describe('the turns a bisect runs over', () => {
  it('keeps the turns with project commits, oldest first; an imported turn by its linked commits', () => {
    const turns: TimelineTurnCommits[] = [
      { turn: 3, sha: sha(103), projectCommit: null, linkedCommits: [{ sha: sha(31) }, { sha: sha(32) }] },
      { turn: 2, sha: sha(102), projectCommit: null, linkedCommits: [] },
      { turn: 1, sha: sha(101), projectCommit: sha(1), linkedCommits: [] },
    ];
    expect(codeTurns(turns)).toEqual([
      { turn: 1, sha: sha(101), commits: [sha(1)] },
      { turn: 3, sha: sha(103), commits: [sha(31), sha(32)] },
    ]);
  });

  it('by default: from the project before the session to the last turn', () => {
    expect(bisectRange('s', timeline(12, () => true), {})).toMatchObject({ good: -1, bad: 11 });
  });

  it('a turn without a commit stands for the last one with commits before it', () => {
    // commits at turns 2, 4, 6, 8
    const range = bisectRange('s', timeline(9, (turn) => turn % 2 === 0), { good: 3, bad: 9 });
    expect(range.turns.map((turn) => turn.turn)).toEqual([2, 4, 6, 8]);
    expect(range).toMatchObject({ good: 0, bad: 3 });
    expect(bisectRange('s', timeline(9, (turn) => turn % 2 === 0), { good: 1, bad: 5 })).toMatchObject({ good: -1, bad: 1 });
  });

  it('refuses a session with no project commits, turns that do not exist, and ranges with no commit inside', () => {
    expect(refusal(() => bisectRange('plain', timeline(5, () => false), {}))).toMatchObject({ reason: 'no_project_commits', message: expect.stringContaining('session plain has no project commits') });
    expect(refusal(() => bisectRange('s', [], {})).reason).toBe('no_project_commits');
    expect(refusal(() => bisectRange('s', timeline(5, () => true), { bad: 6 })).message).toBe('--bad must be a turn of the session, 0 to 5');
    expect(refusal(() => bisectRange('s', timeline(5, () => true), { good: -1 })).reason).toBe('bad_turn');
    expect(refusal(() => bisectRange('s', timeline(5, () => true), { good: 4, bad: 4 })).message).toBe('--good (turn 4) must come before --bad (turn 4)');
    expect(refusal(() => bisectRange('s', timeline(6, (turn) => turn === 2), { good: 3, bad: 6 })).reason).toBe('empty_range');
  });
});
