import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import { assertCommitId } from '../ids.js';
import type { RawCommit } from '../repo/commit-log.js';
import { readTurnLog } from '../repo/turn-log.js';
import { secondsToMs } from '../time.js';
import type { StoreContext } from './store-context.js';
import type { TurnCommitInfo } from '../types.js';
import { ensureCommitState, headDepth } from './commit-state.js';
import { withSession } from './session-access.js';

const PROJECT_COMMIT_TRAILER = /^OpenProgram-Project-Commit:\s*([0-9a-f]{40})\s*$/m;
const PROJECT_SKIPPED_TRAILER = /^OpenProgram-Project-Skipped:\s*([a-z_]+)\s*$/m;
const NESTED_GIT_TRAILER = /^OpenProgram-Nested-Git:\s*(".*")\s*$/gm;
const SHARED_WITH_TRAILER = /^OpenProgram-Shared-With:\s*(\S+)\s*$/gm;
const TRAILER_LINE = /^OpenProgram-[A-Za-z-]+:.*$/gm;

export interface CommitPage {
  commits: TurnCommitInfo[];
  nextCursor: string | null;
}

/**
 * A page cursor names a commit and its turn number, which the next page counts down from; a
 * forged one would answer any turn, or an empty page for a tree or a blob. So cursors are
 * signed with a key of this process, bound to the session: only the server's own are taken
 * (a restart makes the old ones a 400, and the client starts again from the top).
 */
const CURSOR_KEY = randomBytes(32);

function cursorMac(sessionId: string, payload: string): Buffer {
  return createHmac('sha256', CURSOR_KEY).update(`${sessionId}\n${payload}`).digest().subarray(0, 16);
}

function encodeCommitCursor(sessionId: string, sha: string, turn: number): string {
  const payload = Buffer.from(JSON.stringify([sha, turn])).toString('base64url');
  return `${payload}.${cursorMac(sessionId, payload).toString('base64url')}`;
}

function decodeCommitCursor(sessionId: string, cursor: string): { sha: string; turn: number } {
  const [payload = '', mac = '', extra] = cursor.split('.');
  const given = Buffer.from(mac, 'base64url');
  const expected = cursorMac(sessionId, payload);
  if (extra === undefined && given.length === expected.length && timingSafeEqual(given, expected)) {
    try {
      const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (Array.isArray(value) && typeof value[0] === 'string' && Number.isSafeInteger(value[1]) && value[1] >= 0) {
        return { sha: assertCommitId(value[0]), turn: value[1] };
      }
    } catch {
      // fall through
    }
  }
  throw new InvalidInputError('invalid cursor');
}

/** The session's turn commits, newest first, bounded, each with the nodes it added. */
export function listCommits(ctx: StoreContext, sessionId: string, options: { limit?: number; cursor?: string | null } = {}): Promise<CommitPage> {
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new InvalidInputError('limit must be an integer from 1 to 200');
  const start = options.cursor ? decodeCommitCursor(sessionId, options.cursor) : null;
  return withSession(ctx, sessionId, async (session) => {
    const state = await ensureCommitState(session);
    if (!state.head) return { commits: [], nextCursor: null };
    const firstTurn = start ? start.turn : await headDepth(session);
    // One git process for the page (commits and the nodes each added), not a tree read per commit.
    const raw = await readTurnLog(session.dir, start?.sha ?? state.head, limit + 1);
    const page = raw.slice(0, limit);
    const commits: TurnCommitInfo[] = page.map((commit, i) => toCommitInfo(commit, firstTurn - i, commit.addedNodeIds));
    const next = raw[limit];
    return { commits, nextCursor: next ? encodeCommitCursor(sessionId, next.sha, firstTurn - limit) : null };
  });
}

function toCommitInfo(commit: RawCommit, turn: number, nodeIds: string[]): TurnCommitInfo {
  const projectCommit = PROJECT_COMMIT_TRAILER.exec(commit.message)?.[1] ?? null;
  return {
    sha: commit.sha,
    message: commit.message.replace(TRAILER_LINE, '').trim(),
    createdAt: secondsToMs(commit.timestamp),
    turn,
    nodeIds,
    projectCommit,
    projectCommitSkipped: projectCommit ? null : (PROJECT_SKIPPED_TRAILER.exec(commit.message)?.[1] ?? null),
    nestedGit: nestedGitOf(commit.message),
    projectCommitSharedWith: projectCommit ? [...commit.message.matchAll(SHARED_WITH_TRAILER)].map((match) => match[1]!) : [],
  };
}

function nestedGitOf(message: string): string[] {
  const paths: string[] = [];
  for (const match of message.matchAll(NESTED_GIT_TRAILER)) {
    try {
      const path: unknown = JSON.parse(match[1]!);
      if (typeof path === 'string') paths.push(path);
    } catch {
      // a trailer someone else wrote: not ours to show
    }
  }
  return paths;
}
