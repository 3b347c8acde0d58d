import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeDuration, interruptionNote } from '../dag/record-nodes.js';
import type { RunningTurn } from '../session/store-context.js';
import { manualClock, tempStoresPerTest } from '../testing/temp-store.js';
import { idleTurnIds } from './commit-turn.js';

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
}

function turn(lastActivityAt: number, selfTimed = false): RunningTurn {
  return { turn: 1, projectId: 'default', projectPath: null, snapshot: null, lastActivityAt, selfTimed };
}

describe('idleTurnIds', () => {
  it('picks the turns quiet for the limit or longer, never the server\'s own', () => {
    const turns = new Map([
      ['quiet', turn(900)],
      ['exact', turn(1000)],
      ['busy', turn(1001)],
      ['chat', turn(0, true)],
    ]);
    expect(idleTurnIds(turns, 1000 + 600, 10 * 60_000)).toEqual(['quiet', 'exact']);
    expect(idleTurnIds(new Map(), 1000, 1)).toEqual([]);
  });
});

describe('interruption note', () => {
  it('says the limit in words', () => {
    expect(describeDuration(600_000)).toBe('10 minutes');
    expect(describeDuration(60_000)).toBe('1 minute');
    expect(describeDuration(1_000)).toBe('1 second');
    expect(describeDuration(4_000)).toBe('4 seconds');
    expect(describeDuration(3 * 3_600_000)).toBe('3 hours');
    expect(interruptionNote('idle', 600_000)).toBe('No activity for 10 minutes: the turn was ended as cancelled.');
    expect(interruptionNote('stopped', null)).toBe('Stopped: the turn was ended as cancelled.');
  });
});

describe('interruptTurn and the idle sweep', () => {
  const open = tempStoresPerTest();

  it('ends an abandoned turn as cancelled with a note and one session commit', async () => {
    const { store, dir } = await open({ turnIdleMs: 0 });
    await store.createSession({ id: 's', agentId: 'bot', source: 'api' });
    await store.beginTurn('s');
    await store.appendMessage('s', { role: 'user', content: 'do the thing' });
    const result = await store.interruptTurn('s', 'stopped');
    expect(result.interrupted).toBe(true);
    expect(result.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    const detail = await store.getSession('s');
    expect(detail.status).toBe('cancelled');
    expect(detail.turnCount).toBe(1);
    expect(detail.interruption).toMatchObject({ reason: 'stopped', idleMs: null });
    const note = (await store.getNodes('s')).find((node) => node.name === 'turn/interrupted');
    expect(note?.content).toBe('Stopped: the turn was ended as cancelled.');
    const repo = join(dir, 'sessions', 's');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(result.sessionCommit);
    expect(JSON.parse(git(repo, 'show', 'HEAD:meta.json'))).toMatchObject({ status: 'cancelled', _turn_interrupted: { reason: 'stopped' } });
    // The turn is over: a new begin is accepted and clears the note.
    await store.beginTurn('s');
    expect((await store.getSession('s')).interruption).toBeNull();
  });

  it('changes nothing when no turn runs', async () => {
    const { store } = await open({ turnIdleMs: 0 });
    await store.createSession({ id: 's' });
    expect(await store.interruptTurn('s', 'stopped')).toEqual({ interrupted: false, sessionCommit: null });
    expect((await store.getNodes('s')).length).toBe(0);
    expect((await store.getSession('s')).status).toBe('idle');
  });

  it('the sweep ends a turn once it has been quiet for the limit; a write restarts the clock', async () => {
    const clock = manualClock();
    const { store } = await open({ now: clock.now, turnIdleMs: 60_000 });
    await store.createSession({ id: 'agent' });
    await store.createSession({ id: 'chat' });
    await store.beginTurn('agent');
    await store.beginTurn('chat', { selfTimed: true });
    clock.advance(50);
    await store.appendMessage('agent', { role: 'user', content: 'still here' });
    clock.advance(50);
    expect(await store.sweepIdleTurns()).toEqual([]);
    clock.advance(10);
    expect(await store.sweepIdleTurns()).toEqual(['agent']);
    const detail = await store.getSession('agent');
    expect(detail.status).toBe('cancelled');
    expect(detail.interruption).toEqual({ reason: 'idle', at: clock.now() * 1000, idleMs: 60_000, note: 'No activity for 1 minute: the turn was ended as cancelled.' });
    expect((await store.getNodes('agent')).some((node) => node.content === 'No activity for 1 minute: the turn was ended as cancelled.')).toBe(true);
    // The chat's turn has its own time limit and stays.
    expect((await store.getSession('chat')).status).toBe('running');
    // A late finalize from the agent that went away is answered, not refused.
    await expect(store.finalizeTurn('agent')).resolves.toMatchObject({ sessionCommit: null });
  });

  it('reads the limit from OPENPROGRAM_TURN_IDLE_MS, falling back to ten minutes', async () => {
    const { turnIdleMsFromEnv } = await import('../session-store.js');
    expect(turnIdleMsFromEnv(undefined)).toBe(600_000);
    expect(turnIdleMsFromEnv('5000')).toBe(5000);
    expect(turnIdleMsFromEnv('0')).toBe(0);
    expect(turnIdleMsFromEnv('-3')).toBe(600_000);
    expect(turnIdleMsFromEnv('soon')).toBe(600_000);
  });
});
