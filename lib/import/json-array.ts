import { NotThisFormatError } from './types.js';

/**
 * The elements of a top-level JSON array, one at a time, from a stream of text: only the
 * element being read is held, so a 500 MB conversations.json stays bounded by its largest
 * conversation. Each element's text goes to JSON.parse; this only finds where elements end
 * (depth and strings), it is no JSON parser of its own.
 */
export interface ArrayElement {
  /** 1-based position in the array */
  index: number;
  text: string;
}

export class TruncatedArrayError extends Error {
  constructor(readonly complete: number) {
    super(`the file ends inside its JSON array, after ${complete} complete entr${complete === 1 ? 'y' : 'ies'}`);
    this.name = 'TruncatedArrayError';
  }
}

export async function* arrayElements(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ArrayElement> {
  const decoder = new TextDecoder('utf-8');
  let state: 'before' | 'between' | 'inside' | 'done' = 'before';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = '';
  let index = 0;
  const flush = function* (): Generator<ArrayElement> {
    const text = element.trim();
    element = '';
    if (text !== '') yield { index: ++index, text };
  };
  const feed = function* (text: string): Generator<ArrayElement> {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (state === 'before') {
        if (c === 0x5b /* [ */) {
          state = 'between';
          start = i + 1;
        } else if (c === 0xfeff || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          continue;
        } else {
          throw new NotThisFormatError('not a ChatGPT export: the file is not a JSON array of conversations');
        }
        continue;
      }
      if (state === 'done') {
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        throw new NotThisFormatError('not a ChatGPT export: text after the end of the array');
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c /* \ */) escaped = true;
        else if (c === 0x22 /* " */) inString = false;
        continue;
      }
      if (c === 0x22) {
        inString = true;
        state = 'inside';
      } else if (c === 0x7b || c === 0x5b) {
        depth++;
        state = 'inside';
      } else if (c === 0x7d || c === 0x5d) {
        if (depth === 0 && c === 0x5d) {
          element += text.slice(start, i);
          yield* flush();
          state = 'done';
          start = i + 1;
          continue;
        }
        depth--;
      } else if (c === 0x2c /* , */ && depth === 0) {
        element += text.slice(start, i);
        yield* flush();
        start = i + 1;
        state = 'between';
      } else if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        state = 'inside';
      }
    }
    if (state === 'between' || state === 'inside') element += text.slice(start);
  };
  for await (const chunk of chunks) yield* feed(decoder.decode(chunk, { stream: true }));
  yield* feed(decoder.decode());
  if (state === 'before') throw new NotThisFormatError('not a ChatGPT export: the file is empty');
  if (state !== 'done') throw new TruncatedArrayError(index);
}
