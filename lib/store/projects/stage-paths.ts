import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { GitCommandError, runGit, splitNul } from '../git/git-cli.js';
import { listGitlinks } from '../git/gitlinks.js';

/**
 * Staging of the agent's work into a private index (GIT_INDEX_FILE). `git add` looks inside
 * every checked-out submodule its pathspec covers (it runs `git status` there, under that
 * repository's own config) whatever `diff.ignoreSubmodules` says, so gitlinks never reach its
 * pathspecs: they are excluded, and a covered gitlink is updated with `update-index`, which
 * only reads the submodule's HEAD.
 */

/** Is `path` equal to `prefix` or below it? */
function within(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * `-A` of the whole tree (`paths` null) or of exactly these paths. Returns the ignored paths.
 * `sameAs`: an index file with the same entries (the real one this private index was copied
 * from), whose gitlinks are already known from the safety check.
 */
export async function stageInto(real: string, indexFile: string, paths: readonly string[] | null, sameAs?: string): Promise<string[]> {
  const env = { GIT_INDEX_FILE: indexFile };
  const links = await listGitlinks(real, sameAs ?? indexFile);
  if (!paths) {
    const exclude = links.map((l) => `:(exclude,literal)${l}`);
    await runGit(real, exclude.length > 0 ? ['add', '-A', '--', '.', ...exclude] : ['add', '-A'], { env });
    await updateGitlinks(real, env, links);
    return [];
  }
  // A path inside a submodule belongs to that repository, not this one.
  const own = paths.filter((p) => !links.some((l) => p !== l && within(p, l)));
  const coveredLinks = links.filter((l) => own.some((p) => within(l, p)));
  const plain = own.filter((p) => !links.includes(p));
  const exclude = coveredLinks.map((l) => `:(exclude,literal)${l}`);
  const ignored = plain.length > 0 ? await stageKnownPaths(real, env, plain, exclude) : [];
  await updateGitlinks(real, env, coveredLinks);
  return ignored;
}

/** Point gitlinks at their submodules' current HEAD (or drop the ones whose folder is gone). */
async function updateGitlinks(real: string, env: Record<string, string>, links: readonly string[]): Promise<void> {
  if (links.length === 0) return;
  await runGit(real, ['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], { env, input: links.map((l) => `${l}\0`).join('') });
}

/**
 * `git add -A` of exactly these paths (literal names, not patterns), in the private index.
 * git refuses ignored paths (exit 1, the others are still added) and fails outright on a
 * missing path it does not track; both fall back to asking check-ignore and update-index.
 * Returns the ignored paths, which are never committed.
 */
async function stageKnownPaths(real: string, env: Record<string, string>, paths: readonly string[], exclude: readonly string[]): Promise<string[]> {
  const res = await runGit(real, ['-c', 'advice.addIgnoredFile=false', 'add', '-A', '--', ...paths.map((p) => `:(literal)${p}`), ...exclude], {
    env,
    okCodes: [0, 1, 128],
  });
  if (res.code === 0) return [];
  if (res.code === 1 && /ignored/.test(res.stderr)) return ignoredAmong(real, paths, env);
  if (res.code === 128 && /did not match any files/.test(res.stderr)) {
    const ignored = await ignoredAmong(real, paths, env);
    const keep = paths.filter((p) => !ignored.includes(p));
    const files: string[] = [];
    const directories: string[] = [];
    for (const path of keep) {
      const info = await lstat(join(real, path)).catch(() => null);
      if (info?.isDirectory()) directories.push(path);
      else files.push(path);
    }
    // update-index --remove drops a vanished tracked file and ignores an unknown one.
    if (files.length > 0) {
      await runGit(real, ['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], { env, input: files.map((f) => `${f}\0`).join('') });
    }
    if (directories.length > 0) await runGit(real, ['add', '-A', '--', ...directories.map((d) => `:(literal)${d}`), ...exclude], { env });
    return ignored;
  }
  throw new GitCommandError(['add'], res.code, res.stderr);
}

/** Untracked paths that .gitignore excludes (tracked files are never reported, as git add agrees). */
async function ignoredAmong(real: string, paths: readonly string[], env: Record<string, string>): Promise<string[]> {
  const res = await runGit(real, ['check-ignore', '-z', '--stdin'], {
    env,
    input: paths.map((p) => `${p}\0`).join(''),
    okCodes: [0, 1],
  });
  return splitNul(res.stdout);
}
