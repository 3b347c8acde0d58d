import { writeBranchRef, countCommits } from '../repo/commit-log.js';
import { writeMeta } from '../repo/session-files.js';
import { loadCommitState, readCommitObject, readHistoryBody, type CommitState } from '../repo/session-git.js';
import type { OpenSession } from './store-context.js';
import type { Redactor } from '../types.js';

/** The last commit's state; once loaded, appends keep `uncommitted` so a commit never rescans. */
export async function ensureCommitState(session: OpenSession): Promise<CommitState> {
  if (!session.commit) {
    const state = await loadCommitState(session.dir);
    session.uncommitted = [...session.fileNames.values()].filter((name) => !state.historyNames.has(name));
    session.commit = state;
  }
  return session.commit;
}

/** First-parent depth of the head commit: the number of turns in the repo. */
export async function headDepth(session: OpenSession): Promise<number> {
  if (session.headDepth === null) {
    const state = await ensureCommitState(session);
    session.headDepth = Math.max(0, (await countCommits(session.dir, state.head)) - 1);
  }
  return session.headDepth;
}

export function pendingRetryRefs(session: OpenSession): string[] {
  const pending = session.meta['_pending_retry_refs'];
  return Array.isArray(pending) ? pending.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * retry-<assistantId> at the commit that added the retried reply; when the reply is not
 * committed yet, at the commit that will hold it (kept in meta.json until then).
 */
export async function recordRetryRef(session: OpenSession, assistantId: string, redactor: Redactor | null): Promise<void> {
  const state = await ensureCommitState(session);
  const name = session.fileNames.get(assistantId);
  if (!name) return;
  if (!state.historyNames.has(name) || !state.head) {
    const pending = new Set(pendingRetryRefs(session));
    pending.add(assistantId);
    session.meta = { ...session.meta, _pending_retry_refs: [...pending] };
    writeMeta(session.dir, session.meta, redactor);
    return;
  }
  const needle = Buffer.from(` ${name}\0`);
  let holder = state.head;
  // Walk back while the parent still holds the node; bounded, because history can be long.
  for (let step = 0; step < 2_000; step++) {
    const commit = await readCommitObject(session.dir, holder);
    const parent = commit.parents[0];
    if (!parent) break;
    const parentCommit = await readCommitObject(session.dir, parent);
    if (!(await readHistoryBody(session.dir, parentCommit.tree)).includes(needle)) break;
    holder = parent;
  }
  await writeBranchRef(session.dir, `retry-${assistantId}`, holder);
}
