import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../lib/store/index.js';
import { run } from './main.js';

async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['--data', dataDir, ...args], { out: (line) => out.push(line), err: (line) => err.push(line) }, {} as NodeJS.ProcessEnv);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const usage = (model: string, input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0, reasoning: null, model, agent: 'claude-code', ttfbMs: 5, durationMs: 9, status: 'complete', exact: true });

describe('entity-memory usage (DESIGN §15)', () => {
  it('by model and by session, as a table and as JSON, from answers written while no rollups were open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'em-cli-usage-'));
    dirs.push(dir);
    const created = await cli(dir, 'users', 'add', 'admin@cli.test', '--password', 'a long password', '--admin', '--json');
    const userId = (JSON.parse(created.out) as { id: string }).id;
    const store = await SessionStore.open({ stateDir: join(dir, 'users', userId), workspaceRoot: join(dir, 'workspaces', userId) });
    await store.createSession({ id: 'costly' });
    await store.appendMessage('costly', { role: 'assistant', content: 'a', metadata: { usage: usage('claude-sonnet-4-5', 1_000_000, 100_000) } });
    await store.createSession({ id: 'cheap' });
    await store.appendMessage('cheap', { role: 'assistant', content: 'b', metadata: { usage: usage('local-model', 10, 20) } });
    await store.close();

    const byModel = await cli(dir, 'usage', '--by', 'model', '--json');
    expect(byModel.code).toBe(0);
    const rows = (JSON.parse(byModel.out) as { rows: { key: string; input: number; output: number; costUsd: number | null; unpriced: number }[] }).rows;
    // $3 per million input and $15 per million output (the shipped price of claude-sonnet-4-5)
    expect(rows.map(({ key, input, output, costUsd, unpriced }) => ({ key, input, output, costUsd, unpriced }))).toEqual([
      { key: 'claude-sonnet-4-5', input: 1_000_000, output: 100_000, costUsd: 4.5, unpriced: 0 },
      { key: 'local-model', input: 10, output: 20, costUsd: null, unpriced: 1 },
    ]);
    const bySession = await cli(dir, 'usage', '--by', 'session');
    expect(bySession.out.split('\n')[1]).toMatch(/^costly\t.*\t1\t1000000\t100000\t0\t0\t0\.0%\t\$4\.5000\t$/);
    expect(bySession.out).toContain('no price');
    const bad = await cli(dir, 'usage', '--by', 'week');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--by takes day, model, project, session');
  });
});
