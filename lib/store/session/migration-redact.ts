import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeText, rewriteTextBytes, rewriteTextFile, type TextRewrite } from '../../fs/text-file.js';
import { runGit } from '../git/git-cli.js';
import type { Redactor } from '../types.js';
import { BACKGROUND_REDACT_CHARS } from './redact-parts.js';

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
        const redacted = await redactFileBytes(redactor, await readFile(path));
        if (!redacted) continue;
        await writeFile(path, redacted.bytes);
        if (inHistory) nodeSecrets += redacted.count;
      }
    }
  };
  await walk(repo, false);
  // What git keeps beside its objects (MERGE_MSG, SQUASH_MSG, COMMIT_EDITMSG, reflogs, description,
  // info/exclude, …) holds messages, idents and text too: redacted in place like the work tree.
  await redactGitFiles(join(repo, '.git'), redactor);

  const replaced = new Map<string, string>();
  let messagesHoldSecrets = false;
  const all = (await runGit(repo, ['cat-file', '--batch-all-objects', '--batch'])).stdout;
  for (const object of objectsOf(all)) {
    if (object.type === 'blob') {
      const redacted = await redactFileBytes(redactor, object.body);
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

/**
 * Every file under `.git` but its objects (the caller rewrites those) and what git rewrites
 * itself afterwards, redacted in place as text. Binary ones (the index) are left alone.
 */
async function redactGitFiles(dir: string, redactor: Redactor, top = dir): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (dir === top && entry.name === 'objects') continue;
      await redactGitFiles(path, redactor, top);
    } else if (entry.isFile()) {
      const redacted = await redactFileBytes(redactor, await readFile(path));
      if (redacted) await writeFile(path, redacted.bytes);
    }
  }
}

/** The redactor as a rewrite of one value (lib/fs/text-file.ts). */
const rewriteWith =
  (redactor: Redactor): TextRewrite =>
  (value) => {
    const { message, count } = redactor({ content: value });
    return { value: message.content, count };
  };

/** A text redacted, in the encoding it was read in; null when there was nothing to take out. */
function redactTextBytes(bytes: Buffer, redactor: Redactor): { bytes: Buffer; count: number } | null {
  return rewriteTextBytes(bytes, rewriteWith(redactor));
}

/**
 * Redacted bytes of a text file (JSON: every string inside; not UTF-8: as Latin-1), or null when
 * there is nothing to take out. A file with a NUL byte is binary and left alone.
 */
export function redactBytes(bytes: Buffer, redactor: Redactor): { bytes: Buffer; count: number } | null {
  return rewriteTextFile(bytes, rewriteWith(redactor));
}

interface RawObject {
  oid: string;
  type: string;
  body: Buffer;
}

/**
 * A file's bytes redacted as redactBytes does (JSON: every string inside; not UTF-8: as Latin-1),
 * in the redactor's background when the file is large: an uploaded text file, a document an agent
 * sent through the proxy. Null when there is nothing to take out.
 */
export async function redactFileBytes(redactor: Redactor, bytes: Buffer): Promise<{ bytes: Buffer; count: number } | null> {
  if (!redactor.bytesInBackground || bytes.byteLength < BACKGROUND_REDACT_CHARS) return redactBytes(bytes, redactor);
  const redacted = await redactor.bytesInBackground(bytes);
  return redacted && { bytes: Buffer.from(redacted.bytes.buffer, redacted.bytes.byteOffset, redacted.bytes.byteLength), count: redacted.count };
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

const IDENT = /^(author|committer|tagger)( .*)? <([^<>\n]*)> (\d+ [+-]\d{4})$/s;

/**
 * An `author` / `committer` / `tagger` line with its name and email redacted (each on its own,
 * so no marker can swallow the `<` `>` around the email); null when it held nothing.
 */
function redactIdent(line: Buffer, redactor: Redactor): Buffer | null {
  const { text, encoding } = decodeText(line);
  const ident = IDENT.exec(text);
  if (!ident) return null;
  const name = ident[2] ? redactor({ content: ident[2].slice(1) }) : { message: { content: '' }, count: 0 };
  const email = redactor({ content: ident[3]! });
  if (name.count + email.count === 0) return null;
  // Characters an ident cannot hold (they would end its name or its email) never come back in.
  const safe = (value: unknown): string => String(value).replace(/[<>\n]/g, '');
  const nameText = ident[2] ? ` ${safe(name.message.content)}` : '';
  return Buffer.from(`${ident[1]}${nameText} <${safe(email.message.content)}> ${ident[4]}`, encoding);
}

/**
 * A fast-export stream with blob ids replaced, every message (`data <n>`) and every ident line
 * (author, committer, tagger) redacted. A message or ident that is not UTF-8 is read as Latin-1
 * and written back in it; what holds no secret is copied byte for byte.
 */
export function rewriteExport(stream: Buffer, replaced: Map<string, string>, redactor: Redactor): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < stream.length) {
    let end = stream.indexOf(0x0a, at);
    if (end < 0) end = stream.length;
    const raw = stream.subarray(at, end);
    const line = raw.toString('utf8');
    at = end + 1;
    const data = /^data (\d+)$/.exec(line);
    if (data) {
      const length = Number(data[1]);
      const body = stream.subarray(at, at + length);
      at += length;
      const redacted = redactTextBytes(body, redactor)?.bytes ?? body;
      out.push(Buffer.from(`data ${redacted.length}\n`), redacted);
      continue;
    }
    if (/^(?:author|committer|tagger) /.test(line)) {
      out.push(redactIdent(raw, redactor) ?? raw, Buffer.from('\n'));
      continue;
    }
    const modify = /^M (\d+) ([0-9a-f]{40,64}) (.*)$/.exec(line);
    // The path is copied as bytes (it may not be UTF-8); the prefix before it is ASCII.
    const prefix = modify ? `M ${modify[1]} ${modify[2]} `.length : 0;
    out.push(modify && replaced.has(modify[2]!) ? Buffer.concat([Buffer.from(`M ${modify[1]} ${replaced.get(modify[2]!)} `), raw.subarray(prefix), Buffer.from('\n')]) : Buffer.concat([raw, Buffer.from('\n')]));
  }
  return Buffer.concat(out);
}
