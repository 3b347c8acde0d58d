import { afterEach, describe, expect, it } from 'vitest';
import { openTempStore } from '../testing/temp-store.js';
import type { SessionStore } from '../session-store.js';
import { MAX_PATCH_CHARS } from './diff-commit.js';

let cleanup: (() => Promise<void>) | null = null;

async function store(): Promise<SessionStore> {
  const opened = await openTempStore();
  cleanup = opened.cleanup;
  return opened.store;
}

afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

describe('commitDiff', () => {
  it('lists the files a turn added, with their patches, against the previous turn', async () => {
    const s = await store();
    const { row } = await s.createSession({ id: 'diffs' });
    await s.appendMessage(row.id, { id: 'u1', role: 'user', content: 'hello there' });
    await s.appendMessage(row.id, { id: 'a1', role: 'assistant', content: 'hi' });
    const first = await s.finalizeTurn(row.id);
    await s.appendMessage(row.id, { id: 'u2', role: 'user', content: 'second' });
    const second = await s.finalizeTurn(row.id);

    const diff = await s.commitDiff(row.id, second.sessionCommit!);
    const byPath = new Map(diff.files.map((file) => [file.path, file]));
    const node = diff.files.find((file) => file.path.startsWith('history/') && file.path.endsWith('-u2.json'));
    expect(node).toMatchObject({ status: 'added', truncated: false });
    expect(node!.patch).toMatch(/^diff --git a\/history\/.*-u2\.json/);
    expect(node!.patch).toContain('"output":"second"');
    expect(byPath.get('meta.json')?.status).toBe('modified');
    // The first turn's nodes are not in the second turn's diff.
    expect(diff.files.some((file) => file.path.includes('-u1.json'))).toBe(false);

    const firstDiff = await s.commitDiff(row.id, first.sessionCommit!);
    expect(firstDiff.files.filter((file) => file.path.startsWith('history/')).map((file) => file.status)).toEqual(['added', 'added']);
  });

  it('diffs the root commit against the empty tree', async () => {
    const s = await store();
    const { row } = await s.createSession({ id: 'root' });
    await s.appendMessage(row.id, { role: 'user', content: 'x' });
    await s.finalizeTurn(row.id);
    const { commits } = await s.listCommits(row.id);
    const root = commits[commits.length - 1]!;
    expect(root.message).toBe('session init');
    expect((await s.commitDiff(row.id, root.sha)).files).toEqual([]);
  });

  it('cuts a huge patch and says so', async () => {
    const s = await store();
    const { row } = await s.createSession({ id: 'huge' });
    await s.appendMessage(row.id, { id: 'big', role: 'user', content: 'y'.repeat(MAX_PATCH_CHARS + 10) });
    const { sessionCommit } = await s.finalizeTurn(row.id);
    const file = (await s.commitDiff(row.id, sessionCommit!)).files.find((f) => f.path.endsWith('-big.json'))!;
    expect(file.truncated).toBe(true);
    expect(file.patch.length).toBe(MAX_PATCH_CHARS);
  });

  it('refuses unknown commits, bad ids and unknown sessions', async () => {
    const s = await store();
    const { row } = await s.createSession({ id: 'refuse' });
    await expect(s.commitDiff(row.id, 'f'.repeat(40))).rejects.toMatchObject({ code: 'NOT_FOUND', message: `unknown commit: ${'f'.repeat(40)}` });
    await expect(s.commitDiff(row.id, 'HEAD')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(s.commitDiff('nope', 'f'.repeat(40))).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'unknown session: nope' });
  });
});
