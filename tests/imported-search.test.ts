/**
 * Issue 28, first bullet: a word only in the body of an imported message is found, without a
 * reindex, whichever importer wrote it and whether or not an index was open at the time. Every
 * write reaches the index through the store's change feed (users/<id>/changes/, DESIGN §3).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importInputs, inputsFromPaths } from '../lib/import/import-file.js';
import { importStateDir } from '../lib/import/openprogram.js';
import { FIXTURES, fixture } from '../lib/import/testing/fixtures.js';
import { makeOpenProgramState } from '../lib/import/testing/openprogram-state.js';
import { SessionStore } from '../lib/store/index.js';
import { SearchIndex } from '../lib/search/search-index.js';
import { storeSource } from '../lib/search/store-source.js';

const CLAUDE_ID = 'cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f';
/** U1 of the Claude Code fixture: "The test in tests/test_dates.py is failing. Can you find out why?" */
const CLAUDE_WORD = 'test_dates';
const CLAUDE_MESSAGE = 'cc000000-0000-4000-8000-000000000001';
const CHATGPT_ID = 'chatgpt-6a1f0c2e-5b7d-4e8f-9a0b-1c2d3e4f5a01';
/** a user message of the "Sourdough starter smell" conversation, not its title */
const CHATGPT_WORD = 'nail polish remover';

const temps: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'imported-search-')));
  temps.push(dir);
  return dir;
}

async function openStore(stateDir: string): Promise<SessionStore> {
  const store = await SessionStore.open({ stateDir });
  closers.push(() => store.close());
  return store;
}

async function openIndex(store: SessionStore, source = storeSource(store)): Promise<SearchIndex> {
  const index = await SearchIndex.open({ path: join(store.stateDir, 'search.sqlite'), source, onError: (error) => console.error(error) });
  closers.push(() => index.close());
  return index;
}

function found(index: SearchIndex, q: string): Array<[string, string | null]> {
  return index.search(q, { limit: 100 }).hits.map((hit) => [hit.sessionId, hit.messageId]);
}

describe('imported messages are found', () => {
  it('with the index open (the Import page, `cli import` through the server, --watch)', async () => {
    const store = await openStore(join(temp(), 'state'));
    const index = await openIndex(store);
    await index.caughtUp();
    await importInputs(store, await inputsFromPaths([join(FIXTURES, 'claude-code'), fixture('chatgpt', 'conversations.json')]));
    await index.caughtUp();
    expect(found(index, CLAUDE_WORD)).toContainEqual([CLAUDE_ID, CLAUDE_MESSAGE]);
    expect(found(index, CHATGPT_WORD).map(([sessionId]) => sessionId)).toContain(CHATGPT_ID);
    expect(index.status.state).toBe('ready');
  });

  it('when written with no index open (`cli import` with the server stopped): the next open reads on from the feed, not a rebuild', async () => {
    const stateDir = join(temp(), 'state');
    // The server ran once: its index is whole and closed cleanly.
    const first = await openStore(stateDir);
    await first.createSession({ title: 'already here' });
    const before = await openIndex(first);
    await before.caughtUp();
    await before.close();
    await first.close();
    // `cli import` alone: a store, no index.
    const cli = await SessionStore.open({ stateDir });
    await importInputs(cli, await inputsFromPaths([join(FIXTURES, 'claude-code'), join(FIXTURES, 'codex')]));
    await cli.close();
    // The server starts again.
    const store = await openStore(stateDir);
    const source = storeSource(store);
    const read: string[] = [];
    const index = await openIndex(store, { ...source, nodes: (id) => (read.push(id), source.nodes(id)) });
    await index.caughtUp();
    expect(found(index, CLAUDE_WORD)).toContainEqual([CLAUDE_ID, CLAUDE_MESSAGE]);
    expect(found(index, '--verbose').map(([sessionId]) => sessionId).some((id) => id.startsWith('codex-'))).toBe(true);
    // Only what the feed named was read again: the session from before was not.
    expect(read).not.toContain(store.listSessions({ q: 'already here' }).rows[0]!.id);
    expect(read).toContain(CLAUDE_ID);
  });

  it('after an index that was killed with reads under way: the next open rebuilds it, and finds the import', async () => {
    const stateDir = join(temp(), 'state');
    const store = await openStore(stateDir);
    const { row: earlier } = await store.createSession({ title: 'indexed before' });
    const killed = await SearchIndex.open({ path: join(stateDir, 'search.sqlite'), source: storeSource(store), onError: () => undefined });
    await killed.caughtUp();
    await importInputs(store, await inputsFromPaths([join(FIXTURES, 'claude-code')]));
    // As after a SIGKILL: it stops where it is, writing nothing more and closing nothing.
    (killed as unknown as { closed: boolean }).closed = true;
    const source = storeSource(store);
    const read: string[] = [];
    const next = await openIndex(store, { ...source, nodes: (id) => (read.push(id), source.nodes(id)) });
    await next.caughtUp();
    expect(found(next, CLAUDE_WORD)).toContainEqual([CLAUDE_ID, CLAUDE_MESSAGE]);
    // A rebuild, not a catch-up from the feed: a write acknowledged just before a kill may have no
    // record yet (the crash test found such messages missed for good), so a killed file is read anew.
    expect(read).toContain(earlier.id);
  });

  it('moved in by the OpenProgram importer (the .migration journal)', { timeout: 60_000 }, async () => {
    const root = temp();
    const state = await makeOpenProgramState(root);
    const store = await SessionStore.open({ stateDir: join(root, 'data'), workspaceRoot: join(root, 'work') });
    closers.push(() => store.close());
    const index = await openIndex(store);
    await index.caughtUp();
    expect(await importStateDir(store, state.stateDir)).toMatchObject({ added: 3, skipped: [] });
    await index.caughtUp();
    // p1 of op-plain and b1 of the project-bound op-bound: message bodies only
    expect(found(index, 'files are in src')).toContainEqual(['op-plain', 'p1']);
    expect(found(index, 'Nothing there')).toEqual([['op-plain', 'p5']]);
    expect(found(index, 'write notes.md')).toContainEqual(['op-bound', 'b1']);
  });
});
