import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { git } from './project-repos.js';

/** Every file of a folder (its .git left out), path → bytes. */
export function filesOf(root: string, dir = root, out = new Map<string, Buffer>()): Map<string, Buffer> {
  for (const name of readdirSync(dir)) {
    if (dir === root && name === '.git') continue;
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) filesOf(root, abs, out);
    else out.set(relative(root, abs), readFileSync(abs));
  }
  return out;
}

/** Every file of a commit's tree, path → bytes, as git stored them. */
export function treeOf(repo: string, sha: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const path of git(repo, 'ls-tree', '-r', '--name-only', sha).split('\n')) out.set(path, execFileSync('git', ['cat-file', 'blob', `${sha}:${path}`], { cwd: repo }));
  return out;
}
