/**
 * Which of a file's new bytes may go to the server now (DESIGN §17): whole lines only (a line
 * still being written waits for its newline), and, while the file is still being written, not a
 * trailing run of Claude Code `assistant` lines: one API answer is written as several lines (its
 * thinking, text and tool calls, one block each, IMPORT.md §1) that the import makes into one
 * message, and a message the server has is never extended, so the answer waits until a line of
 * another kind follows or the file has settled.
 */

const NEWLINE = 0x0a;

/** The end (exclusive, relative to `bytes`) of the last whole line; 0 when there is none. */
export function wholeLinesEnd(bytes: Uint8Array): number {
  const last = bytes.lastIndexOf(NEWLINE);
  return last < 0 ? 0 : last + 1;
}

/** An `"type":"assistant"` line of a Claude Code transcript (cheaply, without parsing the rest). */
function isAssistantLine(line: Uint8Array): boolean {
  try {
    const record = JSON.parse(Buffer.from(line.buffer, line.byteOffset, line.length).toString('utf8')) as { type?: unknown };
    return record !== null && typeof record === 'object' && record.type === 'assistant';
  } catch {
    return false; // a malformed line is the import's to report, not held back
  }
}

/** Whether bytes are one whole JSON value (a last line its writer never ended with a newline). */
function isWholeJson(bytes: Uint8Array): boolean {
  try {
    JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/**
 * How many of `bytes` (the file's bytes from the last acknowledged offset) to send now.
 * `settled`: the file has not changed for a while (or this is a one-off run), so an answer at
 * its end is whole, and so is a last line without a newline that is a whole JSON value.
 */
export function sendableLength(bytes: Uint8Array, settled: boolean): number {
  let end = wholeLinesEnd(bytes);
  if (settled) return end < bytes.length && isWholeJson(bytes.subarray(end)) ? bytes.length : end;
  while (end > 0) {
    // (a negative fromIndex would count from the array's end)
    const start = end >= 2 ? bytes.lastIndexOf(NEWLINE, end - 2) + 1 : 0;
    if (!isAssistantLine(bytes.subarray(start, end - 1))) break;
    end = start;
  }
  return end;
}
