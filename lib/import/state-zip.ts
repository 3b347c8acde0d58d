import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Zip, ZipPassThrough } from 'fflate';

/**
 * An OpenProgram state directory as one zip, both ways: the CLI streams a folder to the server
 * as a zip (the server has only the bytes), the server unpacks one into a scratch folder.
 */

/** A zip entry that belongs to a state directory: anything under a `sessions/` folder, or the project registry. */
export function isStateEntry(name: string): boolean {
  return /(?:^|\/)sessions\/./.test(name) || /(?:^|\/)projects\/projects\.json$/.test(name);
}

/** The folder inside the unpacked zip that is the state directory: what comes before its `sessions/` or `projects/`. */
export function stateRootOf(name: string): string {
  const match = /^(.*?)(?:^|\/)(?:sessions|projects)\//.exec(name);
  return match?.[1] ?? '';
}

/** Where an entry goes under `root`, or null for a name that would leave it (absolute, `..`) or names a folder. */
export function entryPath(root: string, name: string): string | null {
  if (name.endsWith('/') || name.includes('\0') || name.startsWith('/') || /^[A-Za-z]:/.test(name)) return null;
  const parts = name.split(/[\\/]/);
  if (parts.some((part) => part === '..')) return null;
  const target = resolve(root, ...parts);
  const rel = relative(root, target);
  return rel === '' || rel.startsWith('..') || rel.startsWith(sep) ? null : target;
}

/** Write one entry's bytes under `root` (false: its name was refused and its bytes passed over). */
export async function extractEntry(root: string, name: string, chunks: AsyncIterable<Uint8Array>): Promise<boolean> {
  const target = entryPath(root, name);
  if (!target) {
    for await (const chunk of chunks) void chunk;
    return false;
  }
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  await pipeline(Readable.from(chunks), createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  return true;
}

/** Every regular file under `dir` (symbolic links left out: the import would refuse them), relative, sorted. */
async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await filesUnder(dir, rel)));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/** A state directory as a zip stream (stored, not compressed: git objects are compressed already), named `<folder>/…`. */
export async function* zipStateDir(dir: string): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  let failure: Error | null = null;
  let finished = false;
  const zip = new Zip((error, data, final) => {
    if (error) failure = error;
    else queue.push(data);
    if (final) finished = true;
  });
  const top = basename(resolve(dir));
  const sink = (entry: ZipPassThrough) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        entry.push(chunk);
        done();
      },
      final(done) {
        entry.push(new Uint8Array(0), true);
        done();
      },
    });
  for (const rel of await filesUnder(dir)) {
    const entry = new ZipPassThrough(`${top}/${rel}`);
    zip.add(entry);
    await pipeline(createReadStream(join(dir, rel), { highWaterMark: 256 * 1024 }), sink(entry));
    while (queue.length > 0) yield queue.shift()!;
    if (failure) throw failure;
  }
  zip.end();
  while (queue.length > 0) yield queue.shift()!;
  if (failure) throw failure;
  if (!finished) throw new Error('the zip did not finish');
}
