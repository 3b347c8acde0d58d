/**
 * session.bulk's loop (DESIGN §5): each id on its own session lock, a few at a time, so their
 * registry changes share log writes (RegistryWriter.writeNow coalesces the requests that arrive
 * while one write is on disk) and the loop yields at every file write in between. 200 ids cost
 * about 200 / BULK_CONCURRENCY log writes instead of 200.
 */
export const BULK_CONCURRENCY = 8;

export interface BulkResult {
  done: string[];
  missing: string[];
}

/** `apply` returns false for an id that is not (or no longer) there. Ids keep their input order; duplicates run once. */
export async function runBulk(ids: Iterable<string>, apply: (id: string) => Promise<boolean>, concurrency = BULK_CONCURRENCY): Promise<BulkResult> {
  const unique = [...new Set(ids)];
  const found: boolean[] = new Array(unique.length).fill(false);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < unique.length) {
      const index = next++;
      found[index] = await apply(unique[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, unique.length) }, lane));
  const result: BulkResult = { done: [], missing: [] };
  unique.forEach((id, i) => (found[i] ? result.done : result.missing).push(id));
  return result;
}
