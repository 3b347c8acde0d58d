import { describe, expect, it } from 'vitest';
import type { ExchangeBytes } from '@/lib/proxy/plan';
import { backgroundCounts, planOffThread, warmBackgroundThread } from './background-thread';
import { movableBuffers } from './moved-buffers';

type Thread = { ready: boolean };
const thread = () => (globalThis as Record<symbol, Thread>)[Symbol.for('entity-memory.background-thread')]!;

describe('memory moved to the background thread, not copied on the request thread (issue 27)', () => {
  it('moves a view that is its buffer whole; a small pooled Buffer or a slice is left to be copied', () => {
    const whole = Buffer.concat([Buffer.alloc(64 * 1024, 1), Buffer.alloc(64 * 1024, 2)]);
    const pooled = Buffer.from('small');
    expect(movableBuffers([whole, pooled, whole.subarray(10), null, Buffer.alloc(0)])).toEqual([whole.buffer]);
  });

  it('an exchange’s kept answer goes to the thread in the transfer list and its reply comes back cut to one message', async () => {
    warmBackgroundThread();
    await expect.poll(() => thread().ready, { timeout: 60_000 }).toBe(true);
    const text = 'x'.repeat(64 * 1024);
    const delta = `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`;
    const answer = Buffer.concat(Array.from({ length: 64 }, () => Buffer.from(delta)));
    const body = Buffer.from(JSON.stringify({ model: 'm', stream: true, tools: [{ name: 'W' }], messages: [{ role: 'user', content: 'y'.repeat(8192) }] }));
    const exchange: ExchangeBytes = { wire: 'anthropic', upstream: 'anthropic', headers: { 'x-entity-memory-session': 's1' }, body, contentType: 'text/event-stream', bytes: answer, outcome: 'complete', maxReplyBytes: 1024 * 1024 };
    const before = backgroundCounts().thread.plan;
    const planning = planOffThread(exchange, [body, answer]);
    // Sent, not copied: the request thread's views are empty from the moment the job left.
    expect(answer.byteLength).toBe(0);
    expect(body.byteLength).toBe(0);
    const planned = await planning;
    expect(backgroundCounts().thread.plan).toBe(before + 1);
    expect(planned.parsed?.steps[0]).toMatchObject({ role: 'user', text: 'y'.repeat(8192) });
    expect(planned.replyCut).toBe(true);
    expect(Buffer.byteLength(planned.reply!.text)).toBeLessThanOrEqual(1024 * 1024);
    expect(planned.reply!.text.startsWith(text)).toBe(true);
  }, 90_000);
});
