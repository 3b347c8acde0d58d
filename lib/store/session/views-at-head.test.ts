import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SessionStore } from '../index.js';

// Counts the processes forked (git is the only one the store starts); each call still runs.
const forks = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:child_process', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:child_process')>();
  return { ...actual, spawn: ((...args: Parameters<typeof actual.spawn>) => (forks.count++, actual.spawn(...args))) as typeof actual.spawn };
});

const root = mkdtempSync(join(tmpdir(), 'em-session-at-cache-'));
let store: SessionStore;

async function turn(question: string, answer: string): Promise<void> {
  await store.appendMessage('s', { role: 'user', content: question });
  await store.appendMessage('s', { role: 'assistant', content: answer });
  await store.finalizeTurn('s');
}

/** How many processes `work` forked. */
async function forksOf(work: () => Promise<unknown>): Promise<number> {
  const before = forks.count;
  await work();
  return forks.count - before;
}

beforeAll(async () => {
  store = await SessionStore.open({ stateDir: join(root, 'state'), workspaceRoot: join(root, 'work') });
  await store.createSession({ id: 's', title: 'S' });
  await turn('Q1', 'A1');
});

afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a shared page read again forks no git (issue 27 item 4: two share links rendered again and again)', () => {
  it('the newest turn and the session at it are read from git once, then from memory until the next turn', async () => {
    const first = await store.newestTurn('s');
    expect(first).toMatchObject({ turn: 1 });
    expect((await store.branchAt('s', first!.sha)).messages.map((m) => m.content)).toEqual(['Q1', 'A1']);
    // Every later visit at this HEAD: no process at all (before: git log, rev-list, cat-file… per visit).
    expect(await forksOf(async () => {
      for (let visit = 0; visit < 3; visit++) await store.branchAt('s', (await store.newestTurn('s'))!.sha);
    })).toBe(0);

    // A new turn moves HEAD: the new view is read, and the old one now has a next turn.
    await turn('Q2', 'A2');
    const second = await store.newestTurn('s');
    expect(second).toMatchObject({ turn: 2 });
    expect(second!.sha).not.toBe(first!.sha);
    expect((await store.branchAt('s', second!.sha)).messages.map((m) => m.content)).toEqual(['Q1', 'A1', 'Q2', 'A2']);
    expect((await store.branchAt('s', first!.sha)).next).toEqual({ sha: second!.sha, turn: 2 });
    expect((await store.branchAt('s', second!.sha)).previous).toEqual({ sha: first!.sha, turn: 1 });
  });

  it('a commit not on the line is still NOT_FOUND', async () => {
    await expect(store.branchAt('s', 'f'.repeat(40))).rejects.toThrow(/unknown commit/);
  });
});
