import { describe, expect, it } from 'vitest';
import { linesOf } from './lines.js';
import { importFile, type ImportTarget } from './import-file.js';
import type { ImportSessionInput, ImportSessionResult } from '../store/index.js';

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function collect(chunks: AsyncIterable<Uint8Array>, options: Parameters<typeof linesOf>[1] = {}) {
  const out: { line: number; text: string }[] = [];
  for await (const line of linesOf(chunks, options)) out.push(line);
  return out;
}

describe('the lines of an import', () => {
  it('split the same at any chunk size: CRLF, a character cut between chunks, a BOM, a last line without a newline', async () => {
    const text = '\uFEFF{"a":1}\r\nzwei: ü€𝄞\n\nlast';
    const expected = [
      { line: 1, text: '{"a":1}' },
      { line: 2, text: 'zwei: ü€𝄞' },
      { line: 3, text: '' },
      { line: 4, text: 'last' },
    ];
    const bytes = new TextEncoder().encode(text);
    for (const size of [1, 2, 3, 5, 7, bytes.length]) expect(await collect(chunked(bytes, size))).toEqual(expected);
  });

  it('skip a line past the bound, keep none of its bytes, report its number and length, and go on with the next', async () => {
    const bytes = new TextEncoder().encode(`short\n${'x'.repeat(50)}\nok\n${'y'.repeat(11)}`);
    const tooLong: [number, number][] = [];
    const lines = await collect(chunked(bytes, 4), { maxLineBytes: 10, onTooLong: (line, length) => tooLong.push([line, length]) });
    expect(lines).toEqual([
      { line: 1, text: 'short' },
      { line: 3, text: 'ok' },
    ]);
    expect(tooLong).toEqual([
      [2, 50],
      [4, 11],
    ]);
  });

  it('a 40 MB line in a transcript is skipped and reported with its file and line; the lines around it are imported', async () => {
    const id = 'huge-line';
    const user = { type: 'user', uuid: 'u1', parentUuid: null, sessionId: id, timestamp: '2026-11-20T10:00:00Z', message: { role: 'user', content: 'hi' } };
    const reply = { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: id, timestamp: '2026-11-20T10:00:01Z', message: { role: 'assistant', content: 'hello' } };
    const huge = `{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"${id}","message":{"role":"user","content":"${'z'.repeat(40 * 1000 * 1000)}"}}`;
    const file = Buffer.from(`${JSON.stringify(user)}\n${huge}\n${JSON.stringify(reply)}\n`);
    const imported: ImportSessionInput[] = [];
    const target: ImportTarget = {
      importSession: async (input): Promise<ImportSessionResult> => {
        imported.push(input);
        return { outcome: 'added', nodesAdded: input.turns.flat().length, turnsAdded: input.turns.length, redacted: 0 };
      },
    };
    // An upload arrives in 64 KiB pieces: the old splitter searched the whole pending text again for each.
    const report = await importFile(target, 'proj/huge.jsonl', chunked(file, 64 * 1024));
    expect(report.skipped).toEqual([{ file: 'proj/huge.jsonl', line: 2, reason: `skipped: the line is ${Buffer.byteLength(huge).toLocaleString('en-US')} bytes, over the 32 MiB a line may have` }]);
    expect(imported).toHaveLength(1);
    expect(imported[0]!.turns.flat().map((node) => node.content)).toEqual(['hi', 'hello']);
  });
});
