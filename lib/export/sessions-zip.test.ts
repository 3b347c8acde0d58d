import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { crc32 } from 'node:zlib';
import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../store/testing/temp-store.js';
import { allSessionIds, sessionsZip, ZIP_INPUT_CHUNK_BYTES } from './sessions-zip.js';
import { collect, seedExportSession } from './testing/session-fixture.js';
import { syntheticSource } from './testing/synthetic-source.js';

describe('zip of sessions', () => {
  const open = tempStoresPerTest();

  it('holds one lossless JSON per session, and is handed on in pieces as it is made', async () => {
    const { store } = await open();
    await seedExportSession(store, 'one');
    await store.createSession({ id: 'two', title: 'Second' });
    await store.appendMessage('two', { role: 'user', content: 'hello two' });
    let pieces = 0;
    const chunks: Uint8Array[] = [];
    for await (const chunk of sessionsZip(store, ['one', 'two'])) {
      pieces++;
      chunks.push(chunk);
    }
    expect(pieces).toBeGreaterThan(2);
    const files = unzipSync(await collect(chunks));
    expect(Object.keys(files).sort()).toEqual(['one.json', 'two.json']);
    const two = JSON.parse(strFromU8(files['two.json']!)) as { nodes: Array<{ content: string }>; session: { title: string } };
    expect(two.session.title).toBe('Second');
    expect(two.nodes.map((n) => n.content)).toEqual(['hello two']);
    const one = JSON.parse(strFromU8(files['one.json']!)) as { nodes: unknown[] };
    expect(one.nodes).toEqual(await store.getNodes('one'));
  });
});

describe('a session gone before its turn in the zip', () => {
  const open = tempStoresPerTest();

  it('is named in MISSING.txt and the others are whole', async () => {
    const { store } = await open();
    await store.createSession({ id: 'kept' });
    await store.appendMessage('kept', { role: 'user', content: 'still here' });
    await store.createSession({ id: 'gone' });
    const files = unzipSync(await collect(sessionsZip(store, ['gone', 'kept'])));
    expect(Object.keys(files).sort()).toEqual(['gone.json', 'kept.json']);
    await store.deleteSession('gone');
    const after = unzipSync(await collect(sessionsZip(store, ['gone', 'kept'])));
    expect(Object.keys(after).sort()).toEqual(['MISSING.txt', 'kept.json']);
    expect(strFromU8(after['MISSING.txt']!)).toContain('gone');
    expect((JSON.parse(strFromU8(after['kept.json']!)) as { nodes: unknown[] }).nodes).toHaveLength(1);
  });
});

describe('allSessionIds', () => {
  const open = tempStoresPerTest();

  it('names every session, archived ones too, past one page', async () => {
    const { store } = await open();
    for (let i = 0; i < 205; i++) await store.createSession({ id: `s${i}` });
    await store.setArchived('s3', true);
    const ids = allSessionIds(store);
    expect(ids).toHaveLength(205);
    expect(ids).toContain('s3');
  });
});

/** The crc32 and sizes that the central directory of a one-entry zip gives its entry. */
function centralEntry(zip: Buffer): { crc: number; compressed: number; size: number } {
  // The end-of-central-directory record (22 bytes, no comment) says where the directory starts.
  const at = zip.readUInt32LE(zip.length - 22 + 16);
  expect(zip.readUInt32LE(at)).toBe(0x02014b50);
  return { crc: zip.readUInt32LE(at + 16), compressed: zip.readUInt32LE(at + 20), size: zip.readUInt32LE(at + 24) };
}

const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(40);

describe('a large session in the zip', () => {
  it('is deflated a buffer at a time, a node larger than the buffer too, with its crc and size', async () => {
    const big = `${'a long tool result '.repeat(10_000)}end`;
    const { source } = syntheticSource(300, (seq) => (seq === 150 ? big : `${seq} ${TEXT}`));
    const zip = await collect(sessionsZip(source, ['large']));
    const json = strFromU8(unzipSync(zip)['large.json']!);
    const document = JSON.parse(json) as { nodes: Array<{ content: string }> };
    expect(document.nodes).toHaveLength(300);
    expect(document.nodes[150]!.content).toBe(big);
    expect(document.nodes[299]!.content).toBe(`299 ${TEXT}`);
    expect(Buffer.byteLength(json)).toBeGreaterThan(4 * ZIP_INPUT_CHUNK_BYTES);
    const entry = centralEntry(zip);
    expect(entry.size).toBe(Buffer.byteLength(json));
    expect(entry.crc).toBe(crc32(json));
    expect(entry.compressed).toBeLessThan(entry.size / 10);
  });

  it('costs no memory per node outside the heap: an 8 MB session is zipped in a few buffers', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { source, stats } = syntheticSource(4_000, (seq) => `${seq} ${TEXT}`);
    gc();
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    let bytes = 0;
    for await (const chunk of sessionsZip(source, ['large'])) {
      bytes += chunk.length;
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }
    expect(stats.messagesRead).toBe(4_000);
    expect(bytes).toBeGreaterThan(64 * 1024);
    // fflate's ZipDeflate (and a strToU8 per node) left ~30 MB of typed arrays here.
    expect((peak - before) / 1024 / 1024).toBeLessThan(4);
  });
});
