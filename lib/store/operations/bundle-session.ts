import { streamGit, type GitStream } from '../git/git-cli.js';
import type { StoreContext } from '../session/store-context.js';
import { withSession } from '../session/session-access.js';

/**
 * A git bundle of one session repository (every turn commit, every ref), streamed from
 * `git bundle create - --all`: isomorphic-git has no bundle command. The lock is held only to
 * find the repo; git reads refs once and then objects, which a later turn only adds to.
 */
export async function bundleSession(ctx: StoreContext, sessionId: string): Promise<GitStream> {
  const dir = await withSession(ctx, sessionId, (session) => session.dir);
  return streamGit(dir, ['bundle', 'create', '-', '--all']);
}
