import { Unzip, UnzipInflate, UnzipPassThrough, type UnzipFile } from 'fflate';
import { ZipBudget } from './zip-limits.js';

/**
 * The entries of a zip read as a stream (fflate's Unzip), each as its own stream of bytes, one
 * after the other. Reading waits while the consumer is behind, so memory stays bounded by a few
 * chunks however large the archive.
 */
export interface ZipEntry {
  name: string;
  chunks: AsyncIterable<Uint8Array>;
}

const HIGH_WATER_CHUNKS = 16;

/** A one-reader queue of chunks with backpressure. */
class ChunkChannel implements AsyncIterable<Uint8Array> {
  private readonly queue: Uint8Array[] = [];
  ended = false;
  private failure: Error | null = null;
  private wakeReader: (() => void) | null = null;
  private wakeWriter: (() => void) | null = null;

  push(chunk: Uint8Array): void {
    // A reader that stopped (an entry looked at and passed over) gets nothing more kept for it.
    if (chunk.length > 0 && !this.abandoned) this.queue.push(chunk);
    this.wakeReader?.();
  }
  end(error?: Error): void {
    if (this.ended) return;
    this.ended = true;
    if (error) this.failure = error;
    this.wakeReader?.();
  }
  /** Resolves once the reader has taken enough (or stopped reading). */
  async drained(): Promise<void> {
    while (this.queue.length > HIGH_WATER_CHUNKS && !this.abandoned) await new Promise<void>((wake) => (this.wakeWriter = wake));
  }
  abandoned = false;

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    try {
      for (;;) {
        const chunk = this.queue.shift();
        if (chunk) {
          this.wakeWriter?.();
          yield chunk;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) return;
        await new Promise<void>((wake) => (this.wakeReader = wake));
        this.wakeReader = null;
      }
    } finally {
      this.abandoned = true;
      this.wakeWriter?.();
    }
  }
}

/** Packed bytes handed to the unzipper at once: what one push can unpack (synchronously) is at most about 1,032 times this. */
const PUSH_BYTES = 4 * 1024;

type Decoder = { ondata: (error: Error | null, data: Uint8Array, final: boolean) => void; push(chunk: Uint8Array, final: boolean): void };
type DecoderClass = (new (name: string, size?: number, originalSize?: number) => Decoder) & { compression: number };

/**
 * fflate keeps the packed bytes of every entry nobody starts (for a later start()): an export's
 * gigabyte of images would stay in memory. Entries we pass over are started with a decoder that
 * drops their bytes unread; `skipping` says which kind start() is making.
 */
function passOverDecoders(skipping: () => boolean): DecoderClass[] {
  return ([UnzipPassThrough, UnzipInflate] as unknown as DecoderClass[]).map((Real) => {
    const Choice = function (this: unknown, name: string, size?: number, originalSize?: number): Decoder {
      if (skipping()) return { ondata: () => undefined, push: () => undefined };
      return new Real(name, size, originalSize);
    } as unknown as DecoderClass;
    Choice.compression = Real.compression;
    return Choice;
  });
}

export interface ZipEntriesOptions {
  /** the unpacked-size, ratio and entry-count checks (default: zipLimitsFromEnv) */
  budget?: ZipBudget;
}

/**
 * Entries whose name `wanted` accepts; the others are passed over undecompressed. Each entry read
 * is counted against the budget as it unpacks: past a limit the entry's reader (and this
 * iteration) throws a ZipLimitError, and nothing more of the zip is read.
 */
export async function* zipEntries(input: AsyncIterable<Uint8Array>, wanted: (name: string) => boolean, options: ZipEntriesOptions = {}): AsyncGenerator<ZipEntry> {
  const budget = options.budget ?? new ZipBudget();
  const ready: { name: string; channel: ChunkChannel }[] = [];
  let failure: Error | null = null;
  let packed = 0;
  let packedBeforePush = 0;
  let skipping = false;
  const unzip = new Unzip((file: UnzipFile) => {
    if (failure) return;
    if (!wanted(file.name)) {
      file.ondata = () => undefined;
      skipping = true;
      try {
        file.start();
      } catch {
        // a compression method fflate lacks: its bytes stay buffered, as before
      } finally {
        skipping = false;
      }
      return;
    }
    try {
      budget.admit(file.name, file);
    } catch (error) {
      failure = error as Error;
      return;
    }
    const channel = new ChunkChannel();
    const packedStart = packedBeforePush;
    let unpacked = 0;
    file.ondata = (error, data, final) => {
      if (channel.ended) return;
      if (error) {
        failure = error;
        channel.end(error);
        return;
      }
      unpacked += data.length;
      try {
        budget.count(file.name, data.length, unpacked, packed - packedStart);
      } catch (refusal) {
        failure = refusal as Error;
        channel.end(failure);
        return;
      }
      channel.push(data);
      if (final) channel.end();
    };
    ready.push({ name: file.name, channel });
    file.start();
  });
  for (const decoder of passOverDecoders(() => skipping)) unzip.register(decoder as unknown as Parameters<Unzip['register']>[0]);
  const source = input[Symbol.asyncIterator]();
  let sourceDone = false;
  let chunk: Uint8Array | null = null;
  let offset = 0;
  // One slice of packed bytes per call, so the reader can catch up between slices.
  const feedOne = async (): Promise<void> => {
    if (!chunk || offset >= chunk.length) {
      const next = await source.next();
      if (next.done) {
        sourceDone = true;
        unzip.push(new Uint8Array(0), true);
        if (failure) throw failure;
        return;
      }
      chunk = next.value;
      offset = 0;
    }
    const slice = chunk.subarray(offset, offset + PUSH_BYTES);
    offset += slice.length;
    packedBeforePush = packed;
    packed += slice.length;
    unzip.push(slice);
    if (failure) throw failure;
  };
  for (;;) {
    while (ready.length === 0 && !sourceDone) await feedOne();
    const entry = ready.shift();
    if (!entry) return;
    // Feed while this entry is read, never further ahead than its reader.
    const feeding = (async () => {
      while (!entry.channel.ended && !sourceDone) {
        await feedOne();
        await entry.channel.drained();
      }
      if (!entry.channel.ended) entry.channel.end(new Error(`the zip ends inside ${entry.name}`));
    })();
    feeding.catch((error: Error) => entry.channel.end(error));
    yield { name: entry.name, chunks: entry.channel };
    entry.channel.abandoned = true;
    await feeding.catch(() => undefined);
    if (failure) throw failure;
  }
}
