import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RenderPool, type RenderOutcome } from './render-pool';
import { RENDER_NICE } from './render-protocol';
import { hostileMessages } from '../../e2e/fixtures/hostile-messages';

const BRACKETS = hostileMessages().brackets;
const DEADLINE_MS = 300;

const pools: RenderPool[] = [];
function pool(options: ConstructorParameters<typeof RenderPool>[0] = {}): RenderPool {
  const created = new RenderPool({ size: 1, deadlineMs: DEADLINE_MS, ...options });
  pools.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((each) => each.close()));
});

// A worker starts at low priority (render-worker.ts): on a busy machine that alone can take many seconds.
describe('the render pool', { timeout: 120_000 }, () => {
  it('renders Markdown in a worker thread', async () => {
    const outcome = await pool({ deadlineMs: 10_000 }).render('alice', '# Title\n\n*some* `code`');
    expect(outcome).toEqual({ html: '<h1>Title</h1>\n<p><em>some</em> <code>code</code></p>' });
  });

  it('runs its workers at a lower priority than the threads answering requests', async () => {
    // Field 19 of /proc/<pid>/task/<tid>/stat, after the command name in parentheses.
    const niceThreads = () =>
      readdirSync('/proc/self/task').filter((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) === RENDER_NICE;
      }).length;
    expect(niceThreads()).toBe(0);
    const renders = pool({ deadlineMs: 10_000 });
    await renders.render('alice', 'started');
    expect(niceThreads()).toBeGreaterThanOrEqual(1);
  });

  it('stops a render past the deadline, answers plain text, and replaces the worker', async () => {
    const renders = pool();
    // Started first: the deadline times rendering, not the worker's start.
    await renders.warm();

    const order: string[] = [];
    const hostile = renders.render('mallory', BRACKETS).then((outcome) => {
      order.push('render');
      return outcome;
    });
    // This thread stays free while the worker is busy: a timer fires before the render answers.
    setTimeout(() => order.push('timer'), 20);
    expect(await hostile).toEqual({ plain: 'deadline' });
    expect(order).toEqual(['timer', 'render']);
    expect(renders.counts.replaced).toBe(1);

    // The new worker renders the next message.
    expect(await renders.render('mallory', 'after')).toEqual({ html: '<p>after</p>' });
    expect(renders.counts.replaced).toBe(1);
  });

  it("takes owners in turn: another user's message waits for at most one slow render", async () => {
    const renders = pool();
    await renders.warm();
    const answered: string[] = [];
    const track = (name: string, work: Promise<RenderOutcome>) => work.then((outcome) => (answered.push(name), outcome));
    const slow = [1, 2].map((n) => track(`mallory ${n}`, renders.render('mallory', `${BRACKETS}${n}`)));
    const alice = track('alice', renders.render('alice', 'hello'));
    expect(await alice).toEqual({ html: '<p>hello</p>' });
    await Promise.all(slow);
    expect(answered).toEqual(['mallory 1', 'alice', 'mallory 2']);
    expect(renders.counts.replaced).toBe(2);
  });

  it("keeps a worker free for other users while one user's slow messages hold the other", async () => {
    const renders = pool({ size: 2 });
    await renders.warm();
    const answered: string[] = [];
    const track = (name: string, work: Promise<RenderOutcome>) => work.then((outcome) => (answered.push(name), outcome));
    const slow = [1, 2].map((n) => track(`mallory ${n}`, renders.render('mallory', `${BRACKETS}${n}`)));
    // Alice asks after both of Mallory's: she does not wait for either.
    const alice = track('alice', renders.render('alice', 'hello'));
    expect(await alice).toEqual({ html: '<p>hello</p>' });
    expect(answered).toEqual(['alice']);
    expect(await Promise.all(slow)).toEqual([{ plain: 'deadline' }, { plain: 'deadline' }]);
    expect(answered).toEqual(['alice', 'mallory 1', 'mallory 2']);
  });

  it('answers a failure inside the worker as a failed render, and keeps the worker', async () => {
    const renders = pool({ deadlineMs: 10_000 });
    // Deeper than the bound: refused before the recursive steps (which would overflow the stack).
    expect(await renders.render('alice', `${'>'.repeat(3_000)} deep`)).toEqual({ plain: 'too-deep' });
    expect(await renders.render('alice', 'next')).toEqual({ html: '<p>next</p>' });
    expect(renders.counts.replaced).toBe(0);
  });

  it('answers unavailable, without a restart loop, when no worker can start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'render-pool-'));
    const entry = join(dir, 'broken-worker.mjs');
    writeFileSync(entry, "throw new Error('cannot start');\n");
    const renders = pool({ entry });
    expect(await renders.render('alice', 'text')).toEqual({ plain: 'unavailable' });
    expect(renders.counts.replaced).toBe(0);
  });

  it('answers unavailable once closed', async () => {
    const renders = pool();
    await renders.close();
    expect(await renders.render('alice', 'text')).toEqual({ plain: 'unavailable' });
  });
});
