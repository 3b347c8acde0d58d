import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { execFileSync } from 'node:child_process';
import { tempStoresPerTest } from '../testing/temp-store.js';
import type { ImportNode } from './import-session.js';

const T0 = 1_790_000_000;
const user = (id: string, text: string, parentId: string | null, at: number): ImportNode => ({ id, role: 'user', content: text, parentId, createdAt: at });
const reply = (id: string, text: string, parentId: string, at: number): ImportNode => ({ id, role: 'assistant', content: text, parentId, createdAt: at });

function conversation(): ImportNode[][] {
  return [
    [user('u1', 'first question', null, T0), reply('a1', 'first answer', 'u1', T0 + 5), { id: 't1', role: 'tool', content: 'ran', calledBy: 'a1', parentId: null, name: 'Bash', input: { command: 'ls' }, createdAt: T0 + 6 }],
    [user('u2', 'second question', 'a1', T0 + 60), reply('a2', 'second answer', 'u2', T0 + 65)],
  ];
}

describe('importSession', () => {
  const open = tempStoresPerTest();

  it('a session the source gave no title is titled from its first prompt, not shown by its last; a given title is kept', async () => {
    const { store } = await open();
    await store.importSession({ id: 'codex-x', source: 'codex', turns: conversation() });
    expect(await store.getSession('codex-x')).toMatchObject({ title: 'first question', preview: 'second question', userTitled: false });
    // A person may still rename it, and a later import of the grown file leaves the title alone.
    await store.importSession({ id: 'cc-given', source: 'claude-code', title: 'From the summary line', turns: conversation() });
    expect((await store.getSession('cc-given')).title).toBe('From the summary line');
    // Attachments alone leave nothing to title by: the next prompt titles it.
    await store.importSession({ id: 'cc-attach', source: 'claude-code', turns: [[user('p1', '[attachment: shot.png]', null, T0), user('p2', 'Why does this crash?', 'p1', T0 + 1)]] });
    expect((await store.getSession('cc-attach')).title).toBe('Why does this crash?');
  });

  it('an untitled session imported before gets its first prompt\'s title when its file grows', async () => {
    const { store } = await open();
    const [first, second] = conversation();
    await store.importSession({ id: 'cc-grow', source: 'claude-code', turns: [[{ id: 't0', role: 'tool', content: 'x', calledBy: null, parentId: null, createdAt: T0 - 1 }]] });
    expect((await store.getSession('cc-grow')).title).toBe('');
    await store.importSession({ id: 'cc-grow', source: 'claude-code', turns: [first!, second!] });
    expect(store.listSessions({ q: 'first question' }).rows.map((row) => [row.id, row.title])).toEqual([['cc-grow', 'first question']]);
  });

  it('builds a session with the given ids and times, one commit per turn dated by its last node', async () => {
    const { store, dir } = await open();
    const result = await store.importSession({ id: 'cc-x', source: 'claude-code', title: 'Imported', turns: conversation() });
    expect(result).toEqual({ outcome: 'added', nodesAdded: 5, turnsAdded: 2, redacted: 0 });
    const detail = await store.getSession('cc-x');
    expect(detail).toMatchObject({ source: 'claude-code', title: 'Imported', headId: 'a2', turnCount: 2, createdAt: T0 * 1000, updatedAt: (T0 + 65) * 1000 });
    const branch = await store.getBranch('cc-x');
    expect(branch.map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(branch[1]!.toolCalls.map((t) => [t.id, t.name, t.content])).toEqual([['t1', 'Bash', 'ran']]);
    const log = execFileSync('git', ['-C', join(dir, 'sessions', 'cc-x'), 'log', '--format=%at %s'], { encoding: 'utf8' }).trim().split('\n');
    expect(log).toEqual([`${T0 + 65} turn: second question`, `${T0 + 6} turn: first question`, `${T0} session init`]);
    expect(readdirSync(join(dir, 'sessions')).filter((name) => name.startsWith('.import-'))).toEqual([]);
    // git itself reads the written pack and finds every object sound
    execFileSync('git', ['-C', join(dir, 'sessions', 'cc-x'), 'fsck', '--strict'], { stdio: 'pipe' });
    const tree = execFileSync('git', ['-C', join(dir, 'sessions', 'cc-x'), 'ls-tree', '-r', '--name-only', 'HEAD'], { encoding: 'utf8' }).trim().split('\n');
    expect(tree).toEqual(['history/000000-u-u1.json', 'history/000001-a-a1.json', 'history/000002-t-t1.json', 'history/000003-u-u2.json', 'history/000004-a-a2.json', 'meta.json', 'workdir/.gitkeep']);
  });

  it('the same import twice adds nothing; a grown one adds only its new turns', async () => {
    const { store } = await open();
    await store.importSession({ id: 'cc-x', source: 'claude-code', turns: conversation() });
    expect((await store.importSession({ id: 'cc-x', source: 'claude-code', turns: conversation() })).outcome).toBe('unchanged');
    const grown = [...conversation(), [user('u3', 'third', 'a2', T0 + 120), reply('a3', 'third answer', 'u3', T0 + 125)]];
    expect(await store.importSession({ id: 'cc-x', source: 'claude-code', turns: grown, headId: 'a3' })).toEqual({ outcome: 'updated', nodesAdded: 2, turnsAdded: 1, redacted: 0 });
    const detail = await store.getSession('cc-x');
    expect(detail).toMatchObject({ headId: 'a3', turnCount: 3, preview: 'third' });
  });

  it('keeps the source head on a fork: the abandoned branch stays a sibling', async () => {
    const { store } = await open();
    const turns = [...conversation(), [user('u2b', 'edited question', 'a1', T0 + 30), reply('a2b', 'other answer', 'u2b', T0 + 31)]];
    await store.importSession({ id: 'cc-x', source: 'claude-code', turns, headId: 'a2' });
    const branch = await store.getBranch('cc-x');
    expect(branch.map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(branch[2]!.siblings).toEqual(['u2', 'u2b']);
  });

  it('an import that adds nothing leaves the head where the person moved it', async () => {
    const { store } = await open();
    const turns = [...conversation(), [user('u2b', 'edited question', 'a1', T0 + 30), reply('a2b', 'other answer', 'u2b', T0 + 31)]];
    await store.importSession({ id: 'cc-x', source: 'claude-code', turns, headId: 'a2' });
    await store.setHead('cc-x', 'a2b');
    expect((await store.importSession({ id: 'cc-x', source: 'claude-code', turns, headId: 'a2' })).outcome).toBe('unchanged');
    expect((await store.getSession('cc-x')).headId).toBe('a2b');
  });

  it('leaves a session recorded by the proxy alone', async () => {
    const { store } = await open();
    await store.createSession({ id: 'cc-x', source: 'proxy:claude-code' });
    expect((await store.importSession({ id: 'cc-x', source: 'claude-code', turns: conversation() })).outcome).toBe('alreadyRecorded');
    expect(await store.getNodes('cc-x')).toEqual([]);
  });

  it('an edge to a node never written refuses the whole import and leaves nothing behind', async () => {
    const { store, dir } = await open();
    const turns = [[user('u1', 'q', null, T0), reply('a1', 'a', 'nowhere', T0 + 1)]];
    await expect(store.importSession({ id: 'cc-x', source: 'claude-code', turns })).rejects.toBeInstanceOf(InvalidInputError);
    expect(store.hasSession('cc-x')).toBe(false);
    expect(readdirSync(join(dir, 'sessions')).filter((name) => name.includes('cc-x'))).toEqual([]);
  });

  it("clears its own crash leftovers only: a staging directory of its sub-agent (`<id>-agent-…`, maybe importing now) stays", async () => {
    const { store, dir } = await open();
    const sessions = join(dir, 'sessions');
    mkdirSync(join(sessions, '.import-cc-x-0badc0de'));
    mkdirSync(join(sessions, '.import-cc-x-agent-1-1234abcd'));
    expect((await store.importSession({ id: 'cc-x', source: 'claude-code', turns: conversation() })).outcome).toBe('added');
    expect(readdirSync(sessions).filter((name) => name.startsWith('.import-'))).toEqual(['.import-cc-x-agent-1-1234abcd']);
    // Both at once, as the importer runs them: each comes in whole.
    const results = await Promise.all([
      store.importSession({ id: 'cc-y', source: 'claude-code', turns: conversation() }),
      store.importSession({ id: 'cc-y-agent-1', source: 'claude-code', turns: conversation() }),
    ]);
    expect(results.map((result) => result.outcome)).toEqual(['added', 'added']);
    for (const id of ['cc-y', 'cc-y-agent-1']) expect((await store.getBranch(id)).map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2']);
  });

  it('redacts each node through the store redactor and counts it', async () => {
    const { store } = await open({
      redactor: (message) => {
        const hit = typeof message.content === 'string' && message.content.includes('SECRET');
        return { message: hit ? { ...message, content: (message.content as string).replace('SECRET', '[REDACTED:x]') } : message, count: hit ? 1 : 0 };
      },
    });
    const result = await store.importSession({ id: 'cc-x', source: 'claude-code', turns: [[user('u1', 'my SECRET', null, T0)]] });
    expect(result.redacted).toBe(1);
    expect((await store.getSession('cc-x')).redacted).toBe(1);
    expect((await store.getNodes('cc-x'))[0]!.content).toBe('my [REDACTED:x]');
  });

  it("asks a redactor's mayHoldSecret once for the whole session, and redacts each node only when it may hold one", async () => {
    const seen: unknown[] = [];
    let perNode = 0;
    const redactor = Object.assign(
      <M extends { content: unknown }>(message: M) => {
        perNode++;
        const hit = typeof message.content === 'string' && message.content.includes('SECRET');
        return { message: hit ? { ...message, content: (message.content as string).replace('SECRET', '[REDACTED:x]') } : message, count: hit ? 1 : 0 };
      },
      { mayHoldSecret: (values: unknown) => (seen.push(values), JSON.stringify(values).includes('SECRET')) },
    );
    const { store } = await open({ redactor });
    expect((await store.importSession({ id: 'cc-clean', source: 'claude-code', turns: conversation() })).redacted).toBe(0);
    // Once for every node at once; meta.json's fields (the title, …) are asked about on their own.
    const nodeChecks = seen.filter((values) => JSON.stringify(values).includes('second answer'));
    expect([nodeChecks.length, perNode]).toEqual([1, 0]);
    const turns = conversation();
    turns[1]![1] = reply('a2', 'the SECRET', 'u2', T0 + 65);
    expect((await store.importSession({ id: 'cc-dirty', source: 'claude-code', turns })).redacted).toBe(1);
    expect(perNode).toBe(5);
    expect((await store.getNodes('cc-dirty')).find((node) => node.id === 'a2')!.content).toBe('the [REDACTED:x]');
  });

  it('survives a reopen: the registry has the imported session', async () => {
    const { store, dir } = await open();
    await store.importSession({ id: 'cc-x', source: 'claude-code', turns: conversation() });
    await store.close();
    const { SessionStore } = await import('../session-store.js');
    const again = await SessionStore.open({ stateDir: dir });
    try {
      expect((await again.getSession('cc-x')).turnCount).toBe(2);
    } finally {
      await again.close();
    }
  });
});
