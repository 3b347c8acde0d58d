import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit } from '../git/git-cli.js';
import type { Redactor } from '../types.js';

/**
 * Secrets out of a staged session repo before it is published (DESIGN §10: a secret written to
 * git stays forever). Its files are redacted in place; when any object of its history holds one,
 * the history is rewritten with the redacted objects (fast-export → fast-import, same commits
 * otherwise) and the old objects pruned. A repo without secrets keeps its history unchanged.
 * Answers how many secrets its history/ files held.
 */
export async function redactStagedRepo(repo: string, redactor: Redactor): Promise<number> {
  let nodeSecrets = 0;
  const walk = async (dir: string, inHistory: boolean): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === '.git' && dir === repo) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path, inHistory || (dir === repo && entry.name === 'history'));
      else if (entry.isFile()) {
        const redacted = redactBytes(await readFile(path), redactor);
        if (!redacted) continue;
        await writeFile(path, redacted.bytes);
        if (inHistory) nodeSecrets += redacted.count;
      }
    }
  };
  await walk(repo, false);

  const replaced = new Map<string, string>();
  let messagesHoldSecrets = false;
  const all = (await runGit(repo, ['cat-file', '--batch-all-objects', '--batch'])).stdout;
  for (const object of objectsOf(all)) {
    if (object.type === 'blob') {
      const redacted = redactBytes(object.body, redactor);
      if (redacted) replaced.set(object.oid, (await runGit(repo, ['hash-object', '-w', '--stdin'], { input: redacted.bytes })).stdout.toString().trim());
    } else if ((object.type === 'commit' || object.type === 'tag') && redactor({ content: object.body.toString('utf8') }).count > 0) {
      messagesHoldSecrets = true;
    }
  }
  if (replaced.size === 0 && !messagesHoldSecrets) return nodeSecrets;

  const stream = (await runGit(repo, ['fast-export', '--all', '--no-data', '--signed-tags=strip', '--tag-of-filtered-object=rewrite'])).stdout;
  await runGit(repo, ['fast-import', '--force', '--quiet'], { input: rewriteExport(stream, replaced, redactor) });
  // The index and the reflogs still name the old objects: reset the one, expire the others, prune.
  await runGit(repo, ['read-tree', 'refs/heads/main']);
  for (const name of ['COMMIT_EDITMSG', 'ORIG_HEAD', 'FETCH_HEAD']) await rm(join(repo, '.git', name), { force: true });
  await runGit(repo, ['reflog', 'expire', '--expire=now', '--all']);
  await runGit(repo, ['gc', '--prune=now', '--quiet']);
  return nodeSecrets;
}

/** Redacted bytes of a text file (JSON: every string inside), or null when there is nothing to take out. */
export function redactBytes(bytes: Buffer, redactor: Redactor): { bytes: Buffer; count: number } | null {
  if (bytes.length < 8 || bytes.includes(0)) return null;
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return null; // not UTF-8 text
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(text);
      const { message, count } = redactor({ content: value });
      return count > 0 ? { bytes: Buffer.from(JSON.stringify(message.content)), count } : null;
    } catch {
      // not JSON after all: as text
    }
  }
  const { message, count } = redactor({ content: text });
  return count > 0 ? { bytes: Buffer.from(String(message.content)), count } : null;
}

interface RawObject {
  oid: string;
  type: string;
  body: Buffer;
}

/** `git cat-file --batch` output: `<oid> <type> <size>\n<body>\n` per object. */
function* objectsOf(buffer: Buffer): Generator<RawObject> {
  let at = 0;
  while (at < buffer.length) {
    const end = buffer.indexOf(0x0a, at);
    if (end < 0) return;
    const [oid, type, size] = buffer.subarray(at, end).toString('utf8').split(' ');
    const length = Number(size);
    yield { oid: oid!, type: type!, body: buffer.subarray(end + 1, end + 1 + length) };
    at = end + 1 + length + 1;
  }
}

/** A fast-export stream with blob ids replaced and every message (`data <n>`) redacted. */
export function rewriteExport(stream: Buffer, replaced: Map<string, string>, redactor: Redactor): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < stream.length) {
    let end = stream.indexOf(0x0a, at);
    if (end < 0) end = stream.length;
    const line = stream.subarray(at, end).toString('utf8');
    at = end + 1;
    const data = /^data (\d+)$/.exec(line);
    if (data) {
      const length = Number(data[1]);
      const body = stream.subarray(at, at + length).toString('utf8');
      at += length;
      const redacted = Buffer.from(String(redactor({ content: body }).message.content), 'utf8');
      out.push(Buffer.from(`data ${redacted.length}\n`), redacted);
      continue;
    }
    const modify = /^M (\d+) ([0-9a-f]{40,64}) (.*)$/.exec(line);
    out.push(Buffer.from(`${modify && replaced.has(modify[2]!) ? `M ${modify[1]} ${replaced.get(modify[2]!)} ${modify[3]}` : line}\n`));
  }
  return Buffer.concat(out);
}
