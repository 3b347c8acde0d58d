import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storeSource } from '../search/index.js';
import { manualClock, openTempStore, type TempStore } from '../store/testing/temp-store.js';
import { PriceBook, setPrice, readPrices } from './prices.js';
import { sessionFigures, summarize } from './summary.js';
import { UsageRollups } from './usage-rollups.js';

const DAY_1 = Date.parse('2027-02-01T12:00:00Z') / 1000;
const usage = (input: number | null, output: number | null, extra: Record<string, unknown> = {}) => ({
  input, output, cacheRead: 1000, cacheWrite: null, reasoning: null, model: 'claude-sonnet-4-5-20250929', agent: 'claude-code', ttfbMs: 120, durationMs: 900, status: 'complete', exact: true, ...extra,
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(): Promise<{ temp: TempStore; clock: ReturnType<typeof manualClock>; open: () => Promise<UsageRollups>; path: string }> {
  const clock = manualClock(DAY_1);
  const temp = await openTempStore({ now: clock.now });
  cleanups.push(temp.cleanup);
  const path = join(temp.dir, 'usage.sqlite');
  const open = async () => {
    const rollups = await UsageRollups.open({ path, source: storeSource(temp.store), onError: (error) => { throw error; } });
    cleanups.push(() => rollups.close());
    await rollups.caughtUp();
    return rollups;
  };
  return { temp, clock, open, path };
}

const month = { from: '2027-01-01', to: '2027-03-31', by: 'day' as const };

describe('usage rollups, fed by the change feed (DESIGN §15)', () => {
  it('counts each answer once, live; unknown stays unknown; a deleted session leaves the sums', async () => {
    const { temp, clock, open } = await setUp();
    const rollups = await open();
    const { row } = await temp.store.createSession({ id: 'rec-1', source: 'proxy:claude-code', agentId: 'claude-code' });
    await temp.store.appendMessage(row.id, { role: 'user', content: 'hi' });
    await temp.store.appendMessage(row.id, { role: 'assistant', content: 'a', metadata: { usage: usage(10, 437) } });
    clock.advance(86_400);
    await temp.store.appendMessage(row.id, { role: 'assistant', content: 'b', metadata: { usage: usage(null, null, { cacheRead: null }) } });
    const book = new PriceBook(readPrices(temp.dir));
    const summary = summarize([{ owner: 'me', db: rollups.database! }], book, { ...month, split: 'agent' });
    expect(summary.rows.map(({ period, key, exchanges, input, output, cacheRead, costUsd }) => ({ period, key, exchanges, input, output, cacheRead, costUsd }))).toEqual([
      // 10 × $3 + 437 × $15 + 1000 × $0.30, per million
      { period: '2027-02-01', key: 'Claude Code', exchanges: 1, input: 10, output: 437, cacheRead: 1000, costUsd: 0.006885 },
      // nothing known: unknown, and no cost rather than $0
      { period: '2027-02-02', key: 'Claude Code', exchanges: 1, input: null, output: null, cacheRead: null, costUsd: null },
    ]);
    expect(summary.totals).toMatchObject({ exchanges: 2, input: 10, output: 437, cacheRead: 1000, cacheHitRate: 1000 / 1010 });
    expect(sessionFigures(rollups.database!, row.id, book)).toMatchObject({ exchanges: 2, input: 10, output: 437 });
    await temp.store.deleteSession(row.id);
    expect(summarize([{ owner: 'me', db: rollups.database! }], book, month).rows).toEqual([]);
  });

  it('reads on from its saved position after a close, and is rebuilt from the sessions when missing', async () => {
    const { temp, open, path } = await setUp();
    const first = await open();
    const { row } = await temp.store.createSession({ id: 'rec-2', source: 'api' });
    await temp.store.appendMessage(row.id, { role: 'assistant', content: 'a', metadata: { usage: usage(5, 6) } });
    await first.close();
    // written while the rollups were closed (another process, `cli import`)
    await temp.store.appendMessage(row.id, { role: 'assistant', content: 'b', metadata: { usage: usage(7, 8) } });
    await temp.store.importSession({ id: 'cc-imported', source: 'claude-code', turns: [[
      { id: 'n-1', createdAt: DAY_1, role: 'user', content: 'q', parentId: null },
      { id: 'n-2', createdAt: DAY_1, role: 'assistant', content: 'r', parentId: 'n-1', metadata: { usage: usage(1, 2, { exact: false, estimate: 'undercounts' }) } },
    ]] });
    const book = new PriceBook([]);
    const again = await open();
    const totals = () => summarize([{ owner: 'me', db: again.database! }], book, month).totals;
    expect(totals()).toMatchObject({ exchanges: 3, estimated: 1, input: 13, output: 16, costUsd: null, unpriced: 3 });
    await again.close();
    rmSync(path);
    const rebuilt = await open();
    expect(summarize([{ owner: 'me', db: rebuilt.database! }], book, month).totals).toMatchObject({ exchanges: 3, estimated: 1, input: 13, output: 16 });
  });

  it('a price set from a day changes only the figures from that day on; the CSV is the table', async () => {
    const { temp, clock, open } = await setUp();
    const rollups = await open();
    const { row } = await temp.store.createSession({ id: 'rec-3', source: 'api' });
    await temp.store.appendMessage(row.id, { role: 'assistant', content: 'a', metadata: { usage: usage(1_000_000, 0, { cacheRead: 0, model: 'house-model' }) } });
    clock.advance(86_400);
    await temp.store.appendMessage(row.id, { role: 'assistant', content: 'b', metadata: { usage: usage(1_000_000, 0, { cacheRead: 0, model: 'house-model' }) } });
    const costs = () => summarize([{ owner: 'me', db: rollups.database! }], new PriceBook(readPrices(temp.dir)), month).rows.map((r) => [r.period, r.costUsd, r.unpriced]);
    expect(costs()).toEqual([['2027-02-01', null, 1], ['2027-02-02', null, 1]]);
    setPrice(temp.dir, { model: 'house-model', input: 2, output: 0, cacheRead: 0, cacheWrite: 0, from: '2027-02-01' });
    expect(costs()).toEqual([['2027-02-01', 2, 0], ['2027-02-02', 2, 0]]);
    setPrice(temp.dir, { model: 'house-model', input: 5, output: 0, cacheRead: 0, cacheWrite: 0, from: '2027-02-02' });
    expect(costs()).toEqual([['2027-02-01', 2, 0], ['2027-02-02', 5, 0]]);
  });
});
