import { describe, expect, it } from 'vitest';
import { EventHub } from './hub.js';
import { openEventChannel, openEventStream } from './sse-response.js';

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, text: string): Promise<string> {
  const decoder = new TextDecoder();
  let got = '';
  while (!got.includes(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    got += decoder.decode(value, { stream: true });
  }
  return got;
}

describe('openEventStream', () => {
  it('writes replayed and live events in SSE format', async () => {
    const hub = new EventHub({ boot: 'b1' });
    hub.publish('A', { type: 'session_created', data: { id: 's1' } });
    hub.publish('A', { type: 'session_updated', data: { id: 's1', title: 'x' } });
    const abort = new AbortController();
    const reader = openEventStream(hub, 'A', 'b1-1', abort.signal)!.getReader();
    hub.publish('A', { type: 'session_deleted', data: { id: 's1' } });
    const text = await readUntil(reader, 'session_deleted');
    expect(text).toContain('id: b1-2\nevent: session_updated\ndata: {"id":"s1","title":"x"}\n\n');
    expect(text).toContain('id: b1-3\nevent: session_deleted\ndata: {"id":"s1"}\n\n');
    expect(text).not.toContain('b1-1\n');
    abort.abort();
    expect(hub.openStreams('A')).toBe(0);
  });

  it('sends resync with the current id for an unknown Last-Event-ID', async () => {
    const hub = new EventHub({ boot: 'b1' });
    hub.publish('A', { type: 'x', data: {} });
    const reader = openEventStream(hub, 'A', 'old-7', new AbortController().signal)!.getReader();
    expect(await readUntil(reader, 'resync')).toContain('id: b1-1\nevent: resync\ndata: {}\n\n');
  });

  it('sends heartbeats and ends once the credential is no longer valid', async () => {
    const hub = new EventHub({ boot: 'b1' });
    let valid = true;
    const reader = openEventStream(hub, 'A', null, new AbortController().signal, () => valid, 10)!.getReader();
    expect(await readUntil(reader, ': keepalive')).toContain(': keepalive\n\n');
    valid = false;
    hub.publish('A', { type: 'x', data: {} });
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    expect(hub.openStreams('A')).toBe(0);
  });

  it('ends at once when the hub revalidates a user whose credential has ended, before any write', () => {
    const hub = new EventHub({ boot: 'b1' });
    let valid = true;
    let endedA = false;
    let endedB = false;
    const sink = (onEnd: () => void) => ({ write: () => true, end: onEnd });
    // The heartbeat is far away: only the revalidation can end the stream within this test.
    openEventChannel(hub, 'A', null, sink(() => (endedA = true)), () => valid, 3_600_000);
    openEventChannel(hub, 'B', null, sink(() => (endedB = true)), () => true, 3_600_000);
    hub.revalidate('A');
    expect(endedA).toBe(false); // still valid: nothing happens
    valid = false;
    hub.revalidate('A');
    expect(endedA).toBe(true);
    expect(hub.openStreams('A')).toBe(0);
    expect(endedB).toBe(false);
    expect(hub.openStreams('B')).toBe(1);
  });

  it('returns null past the per-user stream limit', () => {
    const hub = new EventHub({ boot: 'b1', maxStreamsPerUser: 1 });
    expect(openEventStream(hub, 'A', null, new AbortController().signal)).not.toBeNull();
    expect(openEventStream(hub, 'A', null, new AbortController().signal)).toBeNull();
  });
});
