import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redactMessage } from '../lib/redact/index.js';
import { SearchIndex } from '../lib/search/search-index.js';
import { storeSource } from '../lib/search/store-source.js';
import { openTempStore } from '../lib/store/testing/temp-store.js';

// Issue 27 item 7 with the real rules (lib/redact) and the search index attached as the server
// attaches it: a title, a node name and an import's cwd / branch / custom title with real-shaped
// keys end up nowhere on disk: not in meta.json, the registry, git, nor search.sqlite.
const ANTHROPIC = `sk-ant-api03-${'a1B2c3D4'.repeat(4)}`;
const AWS = 'AKIAZ3MHHNE4XQ7TB2PL';
const GITHUB = `ghp_${'x9Y8z7W6'.repeat(4)}abcd`;

function bytesUnder(dir: string): Buffer[] {
  const out: Buffer[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...bytesUnder(path));
    else out.push(readFileSync(path));
  }
  return out;
}

describe('secrets out of titles, names and meta with the real rules (issue 27 item 7)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('reach neither the session files, the registry, git objects nor the search index', async () => {
    const temp = await openTempStore({ redactor: redactMessage });
    const index = await SearchIndex.open({ path: join(temp.dir, 'search.sqlite'), source: storeSource(temp.store), onError: () => undefined });
    await index.caughtUp();
    cleanups.push(async () => {
      await index.close();
      await temp.cleanup();
    });
    const { store } = temp;
    await store.createSession({ id: 's', title: `deploy ${ANTHROPIC}` });
    const user = await store.appendMessage('s', { role: 'user', content: 'hello there' });
    await store.appendMessage('s', { role: 'assistant', parentId: user.id, name: `model ${GITHUB}`, content: 'hi' });
    await store.beginTurn('s');
    await store.finalizeTurn('s');
    await store.updateSession('s', { title: `renamed ${AWS}` });
    await store.importSession({
      id: 'cc-1',
      source: 'claude-code',
      title: `custom ${GITHUB}`,
      meta: { work_dir: `/home/me/${ANTHROPIC}`, git_branch: `fix/${AWS}` },
      turns: [[{ id: 'u1', createdAt: 1_800_000_000, role: 'user', content: 'first question', parentId: null }]],
    });
    await store.flush();
    await index.caughtUp();
    index.flush();
    expect(store.getRow('s')!.title).toBe('renamed [REDACTED:aws]');
    expect(store.getRow('cc-1')!.title).toBe('custom [REDACTED:github]');
    // search.sqlite and its WAL are read as they are. Loose and packed git objects are compressed: every session repo's objects as git prints them too.
    const objects = ['s', 'cc-1'].map((id) => execFileSync('git', ['-C', join(temp.dir, 'sessions', id), 'cat-file', '--batch-all-objects', '--batch']));
    const files = bytesUnder(temp.dir);
    // the index's file is read as it is: the titles are in it, in the clear
    expect(files.some((bytes) => bytes.includes('renamed [REDACTED:aws]') && bytes.includes('SQLite format'))).toBe(true);
    expect(files.some((bytes) => bytes.includes('custom [REDACTED:github]') && bytes.includes('SQLite format'))).toBe(true);
    for (const bytes of [...files, ...objects]) {
      for (const secret of [ANTHROPIC, AWS, GITHUB]) expect(bytes.includes(secret), secret).toBe(false);
    }
  });
});
