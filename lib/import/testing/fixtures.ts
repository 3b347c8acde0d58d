import { createReadStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { linesOf } from '../lines.js';
import type { NumberedLine } from '../types.js';

/** The shared sample files (CI has shared/ beside the repo). */
export const FIXTURES = resolve(import.meta.dirname, '../../../../shared/fixtures/import');

export function fixture(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}

export function fileLines(path: string): AsyncIterable<NumberedLine> {
  return linesOf(createReadStream(path));
}

export async function* textLines(text: string): AsyncGenerator<NumberedLine> {
  yield* linesOf((async function* () {
    yield Buffer.from(text);
  })());
}
