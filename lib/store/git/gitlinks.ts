import { readFile } from 'node:fs/promises';
import { fileSignature } from '../../fs/file-signature.js';
import { runGit, splitNul } from './git-cli.js';
import { GITLINK_MODE, parseIndex } from './index-file.js';

/**
 * The gitlinks (submodule entries, mode 160000) of an index file. Git recurses into a populated
 * submodule from `git add` whatever the config says, so callers keep these paths out of its
 * pathspecs and check the nested repositories' own config. The index is parsed here (formats
 * 2–4) because a `git ls-files -s` of a big repository costs far more than a turn's commit;
 * anything unusual (split index, unknown version) falls back to asking git.
 */

/** Parse the entries' gitlink paths with hashes of `hashLength` bytes; null: not that layout. */
export function parseIndexGitlinks(buf: Buffer, hashLength = 20): string[] | null {
  const index = parseIndex(buf, hashLength);
  return index && index.entries.filter((e) => e.mode === GITLINK_MODE).map((e) => e.path.toString('utf8'));
}

const cache = new Map<string, { signature: string; links: string[] }>();
const CACHE_LIMIT = 1_000;

/**
 * Gitlink paths in `indexFile` (none when it does not exist). Paths that could leave the
 * working tree (`..`, absolute) are dropped: git never writes them, and we only look there.
 */
export async function listGitlinks(cwd: string, indexFile: string): Promise<string[]> {
  const signature = await fileSignature(indexFile);
  if (signature === null) return [];
  const cached = cache.get(indexFile);
  if (cached && cached.signature === signature) return cached.links;
  const buf = await readFile(indexFile).catch(() => null);
  if (!buf) return [];
  let links = parseIndexGitlinks(buf, 20) ?? parseIndexGitlinks(buf, 32);
  if (!links) {
    const { stdout } = await runGit(cwd, ['ls-files', '-s', '-z'], { env: { GIT_INDEX_FILE: indexFile } });
    links = splitNul(stdout)
      .filter((line) => line.startsWith('160000 '))
      .map((line) => line.slice(line.indexOf('\t') + 1));
  }
  links = links.filter((p) => p !== '' && !p.startsWith('/') && !p.split('/').includes('..'));
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(indexFile, { signature, links });
  return links;
}
