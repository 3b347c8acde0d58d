/** git's name-status and patch output, paired file by file (session and project repos alike). */

export type DiffStatus = 'added' | 'modified' | 'deleted' | 'typechanged';

export interface CommitDiffFile {
  path: string;
  status: DiffStatus;
  /** the unified diff of this file (git's `diff --git …` block); "Binary files … differ" for binary ones */
  patch: string;
  /** true when the patch was cut at MAX_PATCH_CHARS */
  truncated: boolean;
}

export interface CommitDiff {
  files: CommitDiffFile[];
}

/** Per file: a turn that wrote a huge tool output must not make a multi-megabyte answer. */
export const MAX_PATCH_CHARS = 256 * 1024;

const STATUS: Record<string, DiffStatus> = { A: 'added', M: 'modified', D: 'deleted', T: 'typechanged' };

export function parseNameStatus(fields: string[]): Array<{ path: string; status: DiffStatus }> {
  const out: Array<{ path: string; status: DiffStatus }> = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const letter = fields[i]!.charAt(0);
    out.push({ path: fields[i + 1]!, status: STATUS[letter] ?? 'modified' });
  }
  return out;
}

export function splitPatch(text: string): string[] {
  if (text === '') return [];
  return text.split(/^(?=diff --git )/m).filter((block) => block.startsWith('diff --git '));
}

/**
 * Both listings come in the same (path) order; git prints a type change as two blocks
 * (deletion, then creation), which belong to one entry.
 */
export function pairBlocks(changed: Array<{ path: string; status: DiffStatus }>, blocks: string[]): CommitDiffFile[] {
  const files: CommitDiffFile[] = [];
  let next = 0;
  for (const entry of changed) {
    const take = entry.status === 'typechanged' ? 2 : 1;
    const patch = blocks.slice(next, next + take).join('');
    next += take;
    const truncated = patch.length > MAX_PATCH_CHARS;
    files.push({ ...entry, patch: truncated ? patch.slice(0, MAX_PATCH_CHARS) : patch, truncated });
  }
  return files;
}
