import { once } from 'node:events';
import { crc32, createDeflateRaw } from 'node:zlib';
import { strToU8, Zip, ZipDeflate, type ZipInputFile } from 'fflate';
import { sessionJson } from './session-json.js';
import { NotFoundError, type SessionStore } from '../store/index.js';
import type { ExportSource } from './source.js';

/**
 * The JSON text is packed into one reused buffer of this many bytes and deflated a buffer at a
 * time: the zip's input never costs an allocation per node, and its memory is this buffer.
 */
export const ZIP_INPUT_CHUNK_BYTES = 64 * 1024;

/**
 * One zip entry's data, deflated by node's zlib (native, its working memory fixed per stream)
 * rather than fflate's ZipDeflate: fflate allocates some 200 KB of typed arrays for every 64 KB
 * it deflates, garbage outside the JS heap that V8 collects only past its external-memory limit,
 * which was most of the server's RSS growth while a 10,000-turn session was zipped (DESIGN §9
 * export_rss_growth_mb_10k). The zip's bytes made so far (`drain`) are yielded after each buffer
 * is deflated, so they are handed on before more JSON is read. The entry's crc and size are set at the end,
 * for the data descriptor that fflate's Zip writes after the data.
 */
async function* deflateEntry(
  entry: ZipInputFile,
  parts: AsyncIterator<string>,
  first: IteratorResult<string>,
  drain: () => Generator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  const deflate = createDeflateRaw({ level: 6 });
  let failure: Error | null = null;
  deflate.on('error', (error) => (failure = error));
  // zlib's output is in ordinary (never shared) ArrayBuffers, which is what fflate's type asks.
  deflate.on('data', (data: Buffer) => entry.ondata!(null, data as Uint8Array<ArrayBuffer>, false));
  const pending = Buffer.allocUnsafe(ZIP_INPUT_CHUNK_BYTES);
  let used = 0;
  let crc = 0;
  let size = 0;
  // Resolves once zlib has consumed the bytes (the write callback): the buffer can be reused.
  const put = async (bytes: Buffer): Promise<void> => {
    crc = crc32(bytes, crc);
    size += bytes.length;
    await new Promise<void>((resolve, reject) => deflate.write(bytes, (error) => (error ? reject(error) : resolve())));
    if (failure) throw failure;
  };
  try {
    for (let next = first; !next.done; next = await parts.next()) {
      const text = next.value;
      const length = Buffer.byteLength(text);
      if (used > 0 && length > pending.length - used) {
        await put(pending.subarray(0, used));
        used = 0;
        yield* drain();
      }
      if (length > pending.length) {
        // A node larger than the buffer: its own bytes, once (memory stays one turn deep).
        await put(Buffer.from(text));
        yield* drain();
      } else used += pending.write(text, used);
    }
    if (used > 0) await put(pending.subarray(0, used));
    const ended = once(deflate, 'end');
    deflate.end();
    await ended;
    if (failure) throw failure;
    entry.crc = crc >>> 0;
    entry.size = size;
    entry.ondata!(null, new Uint8Array(0), true);
    yield* drain();
  } finally {
    // A download cut short stops here (the generator's return): zlib's memory goes at once.
    deflate.destroy();
  }
}

/**
 * Many sessions as one zip, `<id>.json` each (the lossless export), streamed through fflate's
 * Zip: each buffer of JSON is deflated and handed on before the next is read.
 */
export async function* sessionsZip(source: ExportSource, sessionIds: readonly string[]): AsyncGenerator<Uint8Array> {
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else if (data.length > 0) ready.push(data);
  });
  function* drain(): Generator<Uint8Array> {
    if (failure) throw failure;
    while (ready.length > 0) yield ready.shift()!;
  }
  const gone: string[] = [];
  for (const id of sessionIds) {
    const parts = sessionJson(source, id);
    let first: IteratorResult<string>;
    try {
      first = await parts.next();
    } catch (error) {
      // Deleted after it was chosen: said in the zip, not a cut download.
      if (!(error instanceof NotFoundError)) throw error;
      gone.push(id);
      continue;
    }
    // compression 8 (deflate), flag 0 (level 6's, as ZipDeflate would set it); size and crc later.
    const entry: ZipInputFile = { filename: `${id}.json`, size: 0, crc: 0, compression: 8, flag: 0, mtime: Date.now() };
    zip.add(entry);
    yield* deflateEntry(entry, parts, first, drain);
  }
  if (gone.length > 0) {
    const note = new ZipDeflate('MISSING.txt');
    zip.add(note);
    note.push(strToU8(`Deleted while this zip was made, so not in it:\n${gone.join('\n')}\n`), true);
  }
  zip.end();
  yield* drain();
}

/** Every session of a store, archived ones too: what "export all" means. */
export function allSessionIds(store: Pick<SessionStore, 'listSessions'>): string[] {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = store.listSessions({ scope: 'all', limit: 200, cursor });
    for (const row of page.rows) ids.push(row.id);
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}
