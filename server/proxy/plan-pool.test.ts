import { describe, expect, it } from 'vitest';
import { planExchange, type ExchangeBytes } from '@/lib/proxy/plan';
import { planOffThread, warmPlanThread } from './plan-pool';

const exchange = (text: string): ExchangeBytes => ({
  wire: 'anthropic',
  upstream: 'anthropic',
  headers: { 'x-entity-memory-session': 's1' },
  body: Buffer.from(JSON.stringify({ model: 'm', tools: [{ name: 'W' }], messages: [{ role: 'user', content: text }] })),
  contentType: 'application/json',
  bytes: Buffer.from(JSON.stringify({ id: 'msg', content: [{ type: 'text', text: `re: ${text}` }] })),
  outcome: 'complete',
});

type Thread = { worker: unknown; ready: boolean; broken: boolean };
const thread = () => (globalThis as Record<symbol, Thread>)[Symbol.for('entity-memory.proxy-plan-thread')]!;

describe('the planning thread', () => {
  it('plans on the request thread until the thread has loaded, then in it, with the same result and in order', async () => {
    warmPlanThread();
    expect(thread().worker).not.toBeNull();
    const early = await planOffThread(exchange('early'));
    expect(early).toEqual(planExchange(exchange('early')));
    await expect.poll(() => thread().ready, { timeout: 60_000 }).toBe(true);
    const plans = await Promise.all(['one', 'two', 'three'].map((text) => planOffThread(exchange(text))));
    expect(plans.map((plan) => plan.reply?.text)).toEqual(['re: one', 're: two', 're: three']);
    expect(plans[1]).toEqual(planExchange(exchange('two')));
    expect(thread().broken).toBe(false);
  }, 90_000);
});
