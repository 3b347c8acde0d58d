import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * The whole lines of a file that end before byte `end`, last first, each with the offset it
 * starts at: a page from the end reads only the chunks it needs. Bytes after the last newline
 * before `end` (a line still being written, or torn by a crash) are not a line and are skipped.
 */
export async function* linesBackwards(handle: FileHandle, end: number, chunkBytes = CHUNK_BYTES): AsyncGenerator<{ offset: number; text: string }> {
  let position = end;
  // The bytes from `position` to the end of the line being gathered; never a newline among them.
  let carry = Buffer.alloc(0);
  let seenNewline = false;
  while (position > 0) {
    const start = Math.max(0, position - chunkBytes);
    const chunk = Buffer.alloc(position - start);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, start);
    if (bytesRead < chunk.length) throw new Error('the audit log shrank while it was read');
    const data = Buffer.concat([chunk, carry]);
    let lineEnd = data.length;
    for (let index = chunk.length - 1; index >= 0; index -= 1) {
      if (data[index] !== NEWLINE) continue;
      if (seenNewline && index + 1 < lineEnd) yield { offset: start + index + 1, text: data.subarray(index + 1, lineEnd).toString('utf8') };
      seenNewline = true;
      lineEnd = index;
    }
    carry = data.subarray(0, lineEnd);
    position = start;
  }
  if (seenNewline && carry.length > 0) yield { offset: 0, text: carry.toString('utf8') };
}
