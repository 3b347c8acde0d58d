import { runGit } from '../git/git-cli.js';

/**
 * Many blobs of one repo in one `git cat-file --batch` process: a 10,000-node history is one
 * process and one pipe, where reading object by object would cost a pack lookup each.
 * Answers in the order asked; a missing object is null.
 */
export async function readBlobs(repoDir: string, oids: readonly string[]): Promise<Array<Buffer | null>> {
  if (oids.length === 0) return [];
  const { stdout } = await runGit(repoDir, ['cat-file', '--batch', '--buffer'], { input: `${oids.join('\n')}\n` });
  const out: Array<Buffer | null> = [];
  let offset = 0;
  for (let i = 0; i < oids.length && offset < stdout.length; i++) {
    const eol = stdout.indexOf(0x0a, offset);
    if (eol < 0) break;
    const header = stdout.toString('latin1', offset, eol).split(' ');
    offset = eol + 1;
    if (header[1] === 'missing' || header.length < 3) {
      out.push(null);
      continue;
    }
    const size = Number(header[2]);
    out.push(header[1] === 'blob' ? stdout.subarray(offset, offset + size) : null);
    offset += size + 1; // the content, then a newline
  }
  while (out.length < oids.length) out.push(null);
  return out;
}
