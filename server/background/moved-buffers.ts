/**
 * The memory of the views a job's caller gives up, to move to the background thread in
 * postMessage's transfer list instead of copying it on the request thread (a proxied exchange's
 * 16 MiB answer was copied there in one stretch, issue 27). Only a view that is its buffer whole
 * moves: one inside a larger buffer (Node's pool of small Buffers, a slice) is copied, since
 * moving it would take its neighbours' bytes from this thread too.
 */
export function movableBuffers(views: readonly (Uint8Array | null | undefined)[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const view of views) {
    if (!view || view.byteLength === 0) continue;
    const buffer = view.buffer;
    if (buffer instanceof ArrayBuffer && view.byteOffset === 0 && view.byteLength === buffer.byteLength) buffers.add(buffer);
  }
  return [...buffers];
}
