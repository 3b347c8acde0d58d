import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';

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
    if (chunk.length > 0) this.queue.push(chunk);
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

/** Entries whose name `wanted` accepts; the others are passed over undecompressed. */
export async function* zipEntries(input: AsyncIterable<Uint8Array>, wanted: (name: string) => boolean): AsyncGenerator<ZipEntry> {
  const ready: { name: string; channel: ChunkChannel }[] = [];
  let failure: Error | null = null;
  const unzip = new Unzip((file: UnzipFile) => {
    if (!wanted(file.name)) return;
    const channel = new ChunkChannel();
    file.ondata = (error, data, final) => {
      if (error) {
        failure = error;
        channel.end(error);
        return;
      }
      channel.push(data);
      if (final) channel.end();
    };
    ready.push({ name: file.name, channel });
    file.start();
  });
  unzip.register(UnzipInflate);
  const source = input[Symbol.asyncIterator]();
  let sourceDone = false;
  const feedOne = async (): Promise<void> => {
    const next = await source.next();
    if (next.done) {
      sourceDone = true;
      unzip.push(new Uint8Array(0), true);
    } else {
      unzip.push(next.value);
    }
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
  }
}
