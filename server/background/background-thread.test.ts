import { describe, expect, it } from 'vitest';
import { planExchange, type ExchangeBytes } from '@/lib/proxy/plan';
import { redactMessages } from '@/lib/redact/index';
import { planOffThread, runInBackground, warmBackgroundThread } from './background-thread';

const exchange = (text: string): ExchangeBytes => ({
  wire: 'anthropic',
  upstream: 'anthropic',
  headers: { 'x-entity-memory-session': 's1' },
  body: Buffer.from(JSON.stringify({ model: 'm', tools: [{ name: 'W' }], messages: [{ role: 'user', content: text }] })),
  contentType: 'application/json',
  bytes: Buffer.from(JSON.stringify({ id: 'msg', content: [{ type: 'text', text: `re: ${text}` }] })),
  outcome: 'complete',
});

type Thread = { worker: unknown; ready: boolean; broken: boolean; jobs: Map<number, unknown> };
const thread = () => (globalThis as Record<symbol, Thread>)[Symbol.for('entity-memory.background-thread')]!;

describe('the background thread', () => {
  it('plans on the request thread until the thread has loaded, then in it, with the same result and in order; redacts in it', async () => {
    warmBackgroundThread();
    expect(thread().worker).not.toBeNull();
    const early = await planOffThread(exchange('early'));
    expect(early).toEqual(planExchange(exchange('early')));
    // A redaction waits for the thread: it is sent there, not done here.
    const messages = [{ content: `key sk-ant-api03-${'a1B2c3D4'.repeat(4)} here`, metadata: { note: 'nothing' } }, { content: 'plain' }];
    const redacting = runInBackground({ kind: 'redact', messages });
    await expect.poll(() => thread().ready, { timeout: 60_000 }).toBe(true);
    expect(await redacting).toEqual(redactMessages(messages));
    expect((await redacting)[0]!.message.content).toBe('key [REDACTED:anthropic] here');
    const plans = await Promise.all(['one', 'two', 'three'].map((text) => planOffThread(exchange(text))));
    expect(plans.map((plan) => plan.reply?.text)).toEqual(['re: one', 're: two', 're: three']);
    expect(plans[1]).toEqual(planExchange(exchange('two')));
    expect(thread().jobs.size).toBe(0);
    expect(thread().broken).toBe(false);
  }, 90_000);
});
