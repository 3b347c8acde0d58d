import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { REPACK_LOOSE_BYTES } from '../repo/repack.js';
import { tempStoresPerTest } from '../testing/temp-store.js';

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
}

describe('turn commits', () => {
  const open = tempStoresPerTest();
  async function fresh() {
    const temp = await open();
    await temp.store.createSession({ id: 's' });
    return { ...temp, repo: join(temp.dir, 'sessions', 's') };
  }

  it('commits one turn per finalize with the turn\'s message, the nodes it added and turn numbers', async () => {
    const { store, repo } = await fresh();
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    expect(await store.beginTurn('s')).toEqual({ turn: 1, projectClean: null });
    await expect(store.beginTurn('s')).rejects.toBeInstanceOf(ConflictError);
    const u1 = await store.appendMessage('s', { role: 'user', content: 'First question\nwith detail' });
    const a1 = await store.appendMessage('s', { role: 'assistant', content: 'answer' });
    const t1 = await store.finalizeTurn('s');
    expect(t1).toMatchObject({ turn: 1, projectCommit: null, projectCommitSkipped: null });
    expect((await store.getSession('s')).status).toBe('idle');
    expect(events.some((e) => e.type === 'turn_committed' && e.data.sha === t1.sessionCommit && e.data.turn === 1)).toBe(true);

    const long = 'é'.repeat(70);
    const u2 = await store.appendMessage('s', { role: 'user', content: long });
    await store.appendMessage('s', { role: 'assistant', content: 'second' });
    const t2 = await store.finalizeTurn('s', { status: 'failed' });
    expect(t2.turn).toBe(2);
    expect((await store.getSession('s')).status).toBe('failed');
    expect((await store.getSession('s')).turnCount).toBe(2);

    const { commits } = await store.listCommits('s');
    expect(commits.map((c) => [c.message, c.turn])).toEqual([
      [`turn: ${'é'.repeat(60)}`, 2],
      ['turn: First question', 1],
      ['session init', 0],
    ]);
    expect(commits[1]!.nodeIds).toEqual([u1.id, a1.id]);
    expect(commits[0]!.nodeIds[0]).toBe(u2.id);
    expect(git(repo, 'log', '--format=%an <%ae>|%cn <%ce>', '-1')).toBe('OpenProgram <openprogram@local>|OpenProgram <openprogram@local>');
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    execFileSync('git', ['-C', repo, 'fsck', '--strict'], { stdio: 'pipe' });
    // The commit holds what was written: meta.json with the final status and turn count.
    const meta = JSON.parse(git(repo, 'show', 'HEAD:meta.json')) as Record<string, unknown>;
    expect(meta).toMatchObject({ turn_count: 2, status: 'failed' });
  });

  it('commits nothing when nothing changed, and takes a given message', async () => {
    const { store } = await fresh();
    expect((await store.finalizeTurn('s')).sessionCommit).toBeNull();
    await store.appendMessage('s', { role: 'user', content: 'x' });
    const turn = await store.finalizeTurn('s', { commitMessage: 'custom message' });
    expect((await store.listCommits('s')).commits[0]!.message).toBe('custom message');
    expect((await store.finalizeTurn('s')).sessionCommit).toBeNull();
    expect((await store.finalizeTurn('s')).turn).toBe(turn.turn);
    await expect(store.finalizeTurn('s', { status: 'exploded' as never })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('pages the timeline with a cursor and shows the branch as it was at any commit', async () => {
    const { store } = await fresh();
    const shas: string[] = [];
    for (let i = 0; i < 5; i++) {
      await store.appendMessage('s', { role: 'user', content: `q${i}` });
      await store.appendMessage('s', { role: 'assistant', content: `a${i}` });
      shas.push((await store.finalizeTurn('s')).sessionCommit!);
    }
    const first = await store.listCommits('s', { limit: 2 });
    expect(first.commits.map((c) => c.turn)).toEqual([5, 4]);
    const second = await store.listCommits('s', { limit: 2, cursor: first.nextCursor });
    expect(second.commits.map((c) => [c.turn, c.sha])).toEqual([
      [3, shas[2]],
      [2, shas[1]],
    ]);
    const third = await store.listCommits('s', { limit: 2, cursor: second.nextCursor });
    expect(third.commits.map((c) => c.turn)).toEqual([1, 0]);
    expect(third.nextCursor).toBeNull();

    const atTwo = await store.branchAt('s', shas[1]!);
    expect(atTwo.messages.map((m) => m.content)).toEqual(['q0', 'a0', 'q1', 'a1']);
    await expect(store.branchAt('s', 'f'.repeat(40))).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.branchAt('s', 'HEAD')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.listCommits('s', { cursor: 'junk' })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('takes only cursors it issued: forged turns, trees, blobs, missing objects and other sessions are refused', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 'other' });
    for (let i = 0; i < 3; i++) {
      await store.appendMessage('s', { role: 'user', content: `q${i}` });
      await store.finalizeTurn('s');
    }
    const first = await store.listCommits('s', { limit: 1 });
    const issued = first.nextCursor!;
    const second = await store.listCommits('s', { limit: 1, cursor: issued });
    const { sha } = second.commits[0]!;
    const unsigned = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const forged = [
      unsigned([sha, -5]),
      unsigned([sha, 1e308]),
      unsigned([first.commits[0]!.sha, 2]),
      unsigned(['f'.repeat(40), 2]),
      `${unsigned([sha, -5])}.${issued.split('.')[1]}`,
      `${issued}.x`,
      issued.slice(0, -2),
    ];
    for (const cursor of forged) {
      await expect(store.listCommits('s', { limit: 1, cursor }), cursor).rejects.toThrow(/invalid cursor/);
    }
    await expect(store.listCommits('other', { limit: 1, cursor: issued })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('commits attachments and context files with their turn; a cold store extends the same history', async () => {
    const { store, repo, dir } = await fresh();
    await store.appendMessage('s', { role: 'user', content: 'see file' });
    execFileSync('mkdir', ['-p', join(repo, 'workdir', 'attachments'), join(repo, 'context', 'commits')]);
    execFileSync('cp', ['/etc/hostname', join(repo, 'workdir', 'attachments', 'host.txt')]);
    await store.finalizeTurn('s');
    expect(git(repo, 'ls-tree', '-r', '--name-only', 'HEAD')).toContain('workdir/attachments/host.txt');
    await store.close();

    const { SessionStore } = await import('../session-store.js');
    const reopened = await SessionStore.open({ stateDir: dir });
    expect((await reopened.finalizeTurn('s')).sessionCommit).toBeNull(); // nothing new after a cold open
    await reopened.appendMessage('s', { role: 'assistant', content: 'seen' });
    await reopened.finalizeTurn('s');
    expect(git(repo, 'ls-tree', '--name-only', 'HEAD', 'history/').split('\n')).toHaveLength(2);
    execFileSync('git', ['-C', repo, 'fsck', '--strict'], { stdio: 'pipe' });
    await reopened.close();
  });

  it('repacks in the background so loose objects do not pile up, and the repo stays readable', async () => {
    const { store, repo } = await fresh();
    const text = 'lorem ipsum dolor sit amet '.repeat(20);
    let turns = 0;
    while (store.internals.repacks === 0 && turns < 400) {
      await store.appendMessage('s', { role: 'user', content: `${turns} ${text}` });
      await store.appendMessage('s', { role: 'assistant', content: `${turns} ${text}` });
      await store.finalizeTurn('s');
      turns++;
      if (turns % 20 === 0) await store.idle();
    }
    await store.idle();
    expect(store.internals.repacks).toBeGreaterThan(0);
    expect(readdirSync(join(repo, '.git', 'objects', 'pack')).some((name) => name.endsWith('.pack'))).toBe(true);
    const looseDirs = readdirSync(join(repo, '.git', 'objects')).filter((name) => /^[0-9a-f]{2}$/.test(name));
    const loose = looseDirs.reduce((sum, name) => sum + readdirSync(join(repo, '.git', 'objects', name)).length, 0);
    expect(loose).toBeLessThan(turns * 5);
    expect(REPACK_LOOSE_BYTES).toBeGreaterThan(0);
    // Reading through packs still works, for us and for git.
    const { commits } = await store.listCommits('s', { limit: 3 });
    expect(commits[0]!.turn).toBe(turns);
    execFileSync('git', ['-C', repo, 'fsck', '--strict'], { stdio: 'pipe' });
    await store.appendMessage('s', { role: 'user', content: 'after repack' });
    expect((await store.finalizeTurn('s')).turn).toBe(turns + 1);
  });
});
