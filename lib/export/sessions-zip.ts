import { strToU8, Zip, ZipDeflate } from 'fflate';
import { sessionJson } from './session-json.js';
import { NotFoundError, type SessionStore } from '../store/index.js';
import type { ExportSource } from './source.js';

/**
 * Many sessions as one zip, `<id>.json` each (the lossless export), streamed through fflate's
 * Zip: each JSON chunk is deflated and handed on before the next is read.
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
    const entry = new ZipDeflate(`${id}.json`, { level: 6 });
    zip.add(entry);
    for (let next = first; !next.done; next = await parts.next()) {
      entry.push(strToU8(next.value));
      yield* drain();
    }
    entry.push(new Uint8Array(0), true);
    yield* drain();
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
