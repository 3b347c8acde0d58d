import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sessionBundle, sessionJson, sessionsZip } from '../lib/export/index.js';
import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { p50, round, timeAsync } from './store-bench.js';

const PAIRS = 5_000; // 10,000 messages
const PAIRS_PER_TURN = 25; // 200 turn commits

/** A sink that takes its time (a socket to a real client), so backpressure is exercised. */
function slowSink(): Writable {
  return new Writable({
    highWaterMark: 64 * 1024,
    write(_chunk, _encoding, done) {
      setImmediate(done);
    },
  });
}

/** Peak RSS above the RSS before, sampled on every chunk, in MB; the bytes streamed. */
async function rssGrowth(chunks: AsyncIterable<string | Uint8Array>): Promise<{ mb: number; bytes: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  let bytes = 0;
  const sampled = Readable.from(chunks).on('data', (chunk: Buffer | string) => {
    bytes += Buffer.byteLength(chunk);
    peak = Math.max(peak, process.memoryUsage().rss);
  });
  await pipeline(sampled, slowSink());
  return { mb: (peak - before) / 1024 / 1024, bytes };
}

/**
 * DESIGN §9 export figures on one 10,000-message session (about 3 KB a message, so a whole
 * export built in memory would be ~30 MB of text and show): RSS growth while its JSON and the
 * zip of it stream to a slow reader, and the time of its git bundle, read to the end.
 */
export async function benchExport(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-export-');
  const store = await SessionStore.open({ stateDir });
  await store.createSession({ id: 'large' });
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(68);
  for (let i = 0; i < PAIRS; i++) {
    await store.appendMessage('large', { role: 'user', content: `${i} ${text}` });
    await store.appendMessage('large', { role: 'assistant', content: `${i} ${text}` });
    if (i % PAIRS_PER_TURN === PAIRS_PER_TURN - 1) await store.finalizeTurn('large');
  }
  await store.idle();
  // The session as the server has it once opened: the growth measured is the export's own.
  await store.getBranch('large');

  const json = await rssGrowth(sessionJson(store, 'large'));
  const zip = await rssGrowth(sessionsZip(store, ['large']));
  if (json.bytes < 25 * 1024 * 1024) throw new Error(`the JSON export is only ${json.bytes} bytes`);

  const bundles: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [bytes, ms] = await timeAsync(async () => {
      let total = 0;
      for await (const chunk of (await sessionBundle(store, 'large')).chunks) total += chunk.length;
      return total;
    });
    if (bytes < 1024) throw new Error(`the bundle is only ${bytes} bytes`);
    bundles.push(ms);
  }
  await store.close();
  return {
    export_rss_growth_mb_10k: round(Math.max(json.mb, zip.mb)),
    export_bundle_ms_10k: round(p50(bundles)),
  };
}
