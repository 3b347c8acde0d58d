import { LRUCache } from 'lru-cache';
import { NotFoundError } from '../errors.js';
import { assertCommitId } from '../ids.js';
import { isConversationMessage, SessionGraph } from '../dag/graph.js';
import { runGit } from '../git/git-cli.js';
import { readBlobs } from '../repo/blob-batch.js';
import { readBlobAt } from '../repo/commit-log.js';
import { parseTree } from '../repo/git-objects.js';
import { readCommitObject, readHistoryBody } from '../repo/session-git.js';
import { parseNodeText } from '../repo/session-files.js';
import { secondsToMs } from '../time.js';
import type { StoreContext } from '../session/store-context.js';
import type { BranchMessage, StoredNode } from '../types.js';
import { branchMessages } from '../dag/branch.js';
import { withSession } from '../session/session-access.js';
import { ensureCommitState } from '../session/commit-state.js';
import { ViewsAtHead } from '../session/views-at-head.js';

/** A neighbouring turn of the at-turn view. */
export interface TurnRef {
  sha: string;
  turn: number;
}

/** The session as one of its turn commits holds it: nothing appended or switched since shows. */
export interface SessionAt {
  sha: string;
  turn: number;
  createdAt: number;
  message: string;
  projectCommit: string | null;
  /** the head recorded in that commit's meta.json */
  headId: string | null;
  /** the title recorded in that commit's meta.json ('' when it had none): a later rename is not in it */
  title: string;
  messages: BranchMessage[];
  previous: TurnRef | null;
  next: TurnRef | null;
}

const TRAILER_LINE = /^OpenProgram-[A-Za-z-]+:.*$/gm;
const PROJECT_COMMIT_TRAILER = /^OpenProgram-Project-Commit:\s*([0-9a-f]{40})\s*$/m;

/** HEAD's first-parent line, newest first: the session's turns in order (the root is turn 0). */
async function firstParentLine(repoDir: string): Promise<string[]> {
  const { stdout } = await runGit(repoDir, ['rev-list', '--first-parent', 'HEAD'], { okCodes: [0, 128] });
  return stdout.toString('latin1').split('\n').filter((line) => line.length === 40);
}

/** Every node the commit's history/ tree holds, parsed from the blobs git stored, not from today's files. */
async function nodesAtTree(repoDir: string, rootTree: string): Promise<StoredNode[]> {
  const entries = parseTree(await readHistoryBody(repoDir, rootTree)).filter((entry) => entry.mode !== '040000');
  // A blob id names its bytes: a node parsed from git once is the same node in every later read.
  let known = parsedBlobs.get(repoDir);
  if (!known) parsedBlobs.set(repoDir, (known = new Map()));
  const missing = entries.filter((entry) => !known.has(entry.oid));
  const blobs = await readBlobs(repoDir, missing.map((entry) => entry.oid));
  missing.forEach((entry, i) => {
    const blob = blobs[i];
    known.set(entry.oid, blob ? parseNodeText(blob.toString('utf8')) : null);
  });
  const nodes: StoredNode[] = [];
  for (const entry of entries) {
    const node = known.get(entry.oid);
    if (node) nodes.push(node);
  }
  return nodes;
}

/** Parsed node blobs of the few sessions read last: reading another turn of one costs only its new nodes. */
const parsedBlobs = new LRUCache<string, Map<string, StoredNode | null>>({ max: 4 });

/**
 * timeline.at: the branch its meta.json named as head, over the nodes its tree held, with the
 * turns before and after. A sha that is not on this session's line of turns is NOT_FOUND.
 */
export function sessionAt(ctx: StoreContext, sessionId: string, sha: string): Promise<SessionAt> {
  assertCommitId(sha);
  return withSession(ctx, sessionId, async (session) => viewsAtHead.get(session.dir, (await ensureCommitState(session)).head, sha, () => readSessionAt(session.dir, sha)));
}

/** Read once per HEAD: a shared page's every visit asked git again (issue 27 item 4). UTF-16 bytes of the text each holds. */
const viewsAtHead = new ViewsAtHead<SessionAt>((view) => view.messages.reduce((bytes, message) => bytes + message.content.length * 2, 0));

/** sessionAt read from git: HEAD's line, the commit, its tree's nodes and meta.json. */
async function readSessionAt(dir: string, sha: string): Promise<SessionAt> {
  const line = await firstParentLine(dir);
  const index = line.indexOf(sha);
  if (index < 0) throw new NotFoundError(`unknown commit: ${sha}`);
  const turnOf = (at: number): number => line.length - 1 - at;
  const commit = await readCommitObject(dir, sha);
  const graph = new SessionGraph(await nodesAtTree(dir, commit.tree));
  const meta = metaAt(await readBlobAt(dir, commit.tree, 'meta.json'));
  const headId = headIdAt(meta, graph);
  const turn = turnOf(index);
  return {
    sha,
    turn,
    createdAt: secondsToMs(commit.timestamp),
    message: commit.message.replace(TRAILER_LINE, '').trim(),
    projectCommit: PROJECT_COMMIT_TRAILER.exec(commit.message)?.[1] ?? null,
    headId,
    title: typeof meta?.title === 'string' ? meta.title : '',
    messages: branchMessages(graph, headId),
    // turn 0 is the repo's `session init`, not a turn to go back to
    previous: turn > 1 ? { sha: line[index + 1]!, turn: turn - 1 } : null,
    next: index > 0 ? { sha: line[index - 1]!, turn: turn + 1 } : null,
  };
}

/** The commit's meta.json as an object, or null when missing or unreadable (then it names no head and no title). */
function metaAt(metaBlob: Buffer | null): { head_id?: unknown; title?: unknown } | null {
  try {
    const meta: unknown = metaBlob ? JSON.parse(metaBlob.toString('utf8')) : null;
    return meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as { head_id?: unknown; title?: unknown }) : null;
  } catch {
    return null;
  }
}

function headIdAt(meta: { head_id?: unknown } | null, graph: SessionGraph): string | null {
  const head = typeof meta?.head_id === 'string' ? graph.get(meta.head_id) : undefined;
  return head && isConversationMessage(head) ? head.id : null;
}
