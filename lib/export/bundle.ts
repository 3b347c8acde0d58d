import type { ExportSource } from './source.js';

/**
 * The session repo as a git bundle. The first chunk is awaited before this returns, so a git
 * that fails at once is an error the caller can still answer with a status, not a cut download.
 */
export async function sessionBundle(source: ExportSource, sessionId: string): Promise<{ chunks: AsyncIterable<Buffer>; cancel: () => void }> {
  const git = await source.bundle(sessionId);
  const iterator = git.stdout[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) {
    await git.exited; // throws git's own error
    throw new Error('git bundle wrote nothing');
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    yield first.value as Buffer;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value as Buffer;
    await git.exited;
  }
  return { chunks: chunks(), cancel: git.kill };
}
