import { writeLooseObject, serializeCommit } from '../repo/git-objects.js';
import type { GitDirs } from '../git/repo-safety.js';
import { commitTree, type CommitSpec } from './commit-plumbing.js';
import { nowSeconds } from '../time.js';
import { cleanCommitMessage } from '../text.js';

/**
 * The commit object of an agent's commit in a project repository, written here rather than by
 * `git commit-tree`: starting a process from the server costs more than the whole object
 * (DESIGN §14's agent_project_commit_p50_ms). The bytes are the ones commit-tree writes for the
 * same spec (the identity is already free of what git strips, see agentName), as a loose object
 * that git fsyncs no more than its own. A SHA-256 repository is left to git.
 */
export async function writeCommitObject(real: string, dirs: GitDirs, spec: CommitSpec): Promise<string> {
  const sha1 = /^[0-9a-f]{40}$/;
  // commit-tree stores the message as given; serializeCommit ends it with a newline.
  const plain = sha1.test(spec.tree) && (spec.parent === null || sha1.test(spec.parent)) && cleanCommitMessage(spec.message).endsWith('\n');
  if (!plain || !sameIdent(spec)) return commitTree(real, spec);
  const body = serializeCommit({
    tree: spec.tree,
    parents: spec.parent ? [spec.parent] : [],
    author: { ...spec.author, timestamp: spec.time ?? nowSeconds() },
    message: spec.message,
  });
  return writeLooseObject(dirs.commonDir, 'commit', body, false).oid;
}

function sameIdent(spec: CommitSpec): boolean {
  return spec.author.name === spec.committer.name && spec.author.email === spec.committer.email;
}
