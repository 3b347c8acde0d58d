import { describe, expect, it } from 'vitest';
import { agentTurn, git, openProjectStore, storesClosedAfterEach, writeFiles } from '../testing/project-repos.js';
import { tempStoresPerTest } from '../testing/temp-store.js';
import type { SessionStore } from '../session-store.js';

/** Another answer to the question `assistantId` answered, written as its own agent turn that edits `files`. */
async function retryTurn(store: SessionStore, projectDir: string, assistantId: string, content: string, files: Record<string, string>) {
  await store.retry('s', assistantId);
  await store.beginTurn('s');
  for (const path of Object.keys(files)) await store.snapshotBeforeEdit('s', path);
  writeFiles(projectDir, files);
  const reply = await store.appendMessage('s', { role: 'assistant', content });
  const end = await store.finalizeTurn('s', { writtenPaths: Object.keys(files), model: 'test-model' });
  return { reply, end };
}

describe('comparePaths: two branches read along their ancestor chains', () => {
  const stores = storesClosedAfterEach();
  const openTemp = tempStoresPerTest();

  it('two retries: the question is the common message, each side its answer, each side its own project changes and the diff between them', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    await agentTurn(store, 's', projectDir, { 'base.txt': 'base\n' });
    const question = await store.appendMessage('s', { role: 'user', content: 'write the colour' });
    await store.beginTurn('s');
    writeFiles(projectDir, { 'colour.txt': 'blue\n' });
    const first = await store.appendMessage('s', { role: 'assistant', content: 'The sky is blue.' });
    const firstEnd = await store.finalizeTurn('s', { writtenPaths: ['colour.txt'], model: 'test-model' });
    const second = await retryTurn(store, projectDir, first.id, 'The sky is green.', { 'colour.txt': 'green\n', 'extra.txt': 'more\n' });

    const paths = await store.comparePaths('s', first.id, second.reply.id);
    expect(paths.ancestor?.id).toBe(question.id);
    expect(paths.a.map((m) => m.content)).toEqual(['The sky is blue.']);
    expect(paths.b.map((m) => m.content)).toEqual(['The sky is green.']);
    expect(paths.a[0]!.siblings).toEqual([first.id, second.reply.id]);
    expect(paths.project.state).toBe('diff');
    if (paths.project.state !== 'diff') return;
    expect(paths.project.a.commits).toEqual([firstEnd.projectCommit]);
    expect(paths.project.b.commits).toEqual([second.end.projectCommit]);
    // Each side's own changes only: b's commit sits on a's in the folder, yet a's edit is not b's.
    expect(paths.project.a.files.map((f) => [f.path, f.status])).toEqual([['colour.txt', 'added']]);
    expect(paths.project.b.files.map((f) => [f.path, f.status])).toEqual([['colour.txt', 'modified'], ['extra.txt', 'added']]);
    expect(paths.project.b.files[0]!.patch).toContain('-blue\n+green');
    expect(paths.project.between.map((f) => f.path)).toEqual(['colour.txt', 'extra.txt']);
    expect(git(projectDir, 'rev-parse', `${second.end.projectCommit}^`)).toBe(firstEnd.projectCommit);
  });

  it('a session in Home says so; neither side with a project commit says no-commits', async () => {
    const { store, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's' });
    const q = await store.appendMessage('s', { role: 'user', content: 'hi' });
    const r1 = await store.appendMessage('s', { role: 'assistant', content: 'hello' });
    const r2 = await store.appendMessage('s', { role: 'assistant', content: 'hey', parentId: q.id });
    expect((await store.comparePaths('s', r1.id, r2.id)).project).toEqual({ state: 'none', reason: 'home' });
    await store.createSession({ id: 'p', projectId: project.id });
    const pq = await store.appendMessage('p', { role: 'user', content: 'hi' });
    const p1 = await store.appendMessage('p', { role: 'assistant', content: 'hello' });
    const p2 = await store.appendMessage('p', { role: 'assistant', content: 'hey', parentId: pq.id });
    await store.finalizeTurn('p');
    expect((await store.comparePaths('p', p1.id, p2.id)).project).toEqual({ state: 'none', reason: 'no-commits' });
  });

  it('two first messages share nothing; a message and its descendant give one empty side; bad ids are refused', async () => {
    const { store } = await openTemp();
    await store.createSession({ id: 's' });
    const q1 = await store.appendMessage('s', { role: 'user', content: 'first' });
    const r1 = await store.appendMessage('s', { role: 'assistant', content: 'one' });
    const q2 = await store.appendMessage('s', { role: 'user', content: 'edited first', parentId: null });
    const roots = await store.comparePaths('s', r1.id, q2.id);
    expect(roots.ancestor).toBeNull();
    expect(roots.a.map((m) => m.id)).toEqual([q1.id, r1.id]);
    expect(roots.b.map((m) => m.id)).toEqual([q2.id]);
    const down = await store.comparePaths('s', q1.id, r1.id);
    expect(down.ancestor?.id).toBe(q1.id);
    expect(down.a).toEqual([]);
    expect(down.b.map((m) => m.id)).toEqual([r1.id]);
    await expect(store.comparePaths('s', q1.id, 'no-such-node')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.comparePaths('s', q1.id, q1.id)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
