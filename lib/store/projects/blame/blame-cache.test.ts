import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../session-store.js';
import { cleanupTempDirs, git, makeRepo, openProjectStore, storesClosedAfterEach, tempDir, writeFiles } from '../../testing/project-repos.js';
import { BlameCache, type CachedBlame } from './blame-cache.js';
import { gitBlame } from './git-blame.js';
import { projectBlame } from './project-blame.js';

const person = (sha: string) => ({ sha, by: 'person' as const, agent: null, sessionId: null, turn: null });
const blameOf = (rev: string, lines: string[]): CachedBlame => ({ rev, lines, commits: new Map(lines.map((sha) => [sha, person(sha)])) });

function commitFile(dir: string, content: string, message: string): string {
  writeFiles(dir, { 'f.txt': content });
  git(dir, 'commit', '-qam', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** A repo: `one` (a, b), then `two` changing b to c; and a state dir for the cache's files. */
function twoCommits() {
  const dir = makeRepo({ 'f.txt': 'a\nb\n' });
  const one = git(dir, 'rev-parse', 'HEAD');
  const two = commitFile(dir, 'a\nc\n', 'two');
  const disk = { stateDir: tempDir('em-blame-state-'), projectId: 'p_test' };
  return { dir, one, two, disk, scope: { repo: dir, disk } };
}

describe('the blame cache', () => {
  afterEach(cleanupTempDirs);

  it('moves a kept blame forward by the commits since: lines the new commit left alone keep the kept attribution', async () => {
    const { dir, one, two, disk, scope } = twoCommits();
    // Planted on disk (another process's cache): line 1 said to be `two`'s, which git would not say.
    new BlameCache().store(scope, 'f.txt', blameOf(one, [two, one]), true);
    const three = commitFile(dir, 'a\nc\nd\n', 'three');
    const blame = await gitBlame(dir, 'f.txt', undefined, { repo: dir, disk });
    expect(blame.lines.map((line) => [line.text, line.sha])).toEqual([
      ['a', two],
      ['c', two],
      ['d', three],
    ]);
  });

  it('takes a missing, corrupt, other-path or older-format file as a miss: the full blame answers', async () => {
    const { dir, one, two, disk } = twoCommits();
    const expected = [one, two];
    const scope = { repo: dir, disk };
    const planted = new BlameCache();
    expect((await gitBlame(dir, 'f.txt', undefined, { repo: `${dir}#missing`, disk })).lines.map((line) => line.sha)).toEqual(expected);
    planted.store(scope, 'f.txt', blameOf(two, [two, two]), true);
    const file = join(disk.stateDir, 'projects', 'p_test', 'blame', readdirSync(join(disk.stateDir, 'projects', 'p_test', 'blame'))[0]!);
    const good = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const variants: Array<[string, string]> = [
      ['corrupt', '{"version":1,'],
      ['older format', JSON.stringify({ ...good, version: 0 })],
      ['another path', JSON.stringify({ ...good, path: 'g.txt' })],
      ['a line naming no commit', JSON.stringify({ ...good, lines: [0, 7] })],
    ];
    for (const [name, text] of variants) {
      writeFileSync(file, text);
      const blame = await gitBlame(dir, 'f.txt', undefined, { repo: `${dir}#${name}`, disk });
      expect(blame.lines.map((line) => line.sha), name).toEqual(expected);
    }
    // The planted (wrong) one is taken as it is when valid: the cases above were read, and refused.
    writeFileSync(file, JSON.stringify(good));
    expect((await gitBlame(dir, 'f.txt', undefined, { repo: `${dir}#valid`, disk })).lines.map((line) => line.sha)).toEqual([two, two]);
  });

  it('keeps no more than its byte budget in memory, dropping the least recently used', async () => {
    const cache = new BlameCache(3_000);
    const scope = { repo: '/r' };
    const lines = Array.from({ length: 100 }, () => 'a'.repeat(40));
    for (const rev of ['1', '2', '3'].map((digit) => digit.repeat(40))) cache.store(scope, 'f', blameOf(rev, lines), true);
    expect(cache.size).toBe(2);
    expect(await cache.exact(scope, 'f', '1'.repeat(40), false)).toBeNull();
    expect((await cache.exact(scope, 'f', '3'.repeat(40), false))?.rev).toBe('3'.repeat(40));
    // The newest at the tip is where the next blame starts.
    expect((await cache.base(scope, 'f'))?.rev).toBe('3'.repeat(40));
  });
});

describe('projectBlame with its caches', () => {
  const stores = storesClosedAfterEach();

  async function turn(store: SessionStore, projectDir: string, prompt: string, content: string): Promise<string> {
    await store.beginTurn('s');
    await store.appendMessage('s', { role: 'user', content: prompt });
    await store.snapshotBeforeEdit('s', 'f.txt');
    writeFiles(projectDir, { 'f.txt': content });
    await store.appendMessage('s', { role: 'assistant', content: 'done' });
    return (await store.finalizeTurn('s', { writtenPaths: ['f.txt'], model: 'test-model' })).projectCommit!;
  }

  it('after each new turn names the new turn and prompt, as a blame without any cache does', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    let content = 'a\nb\nc\n';
    await turn(store, projectDir, 'first', content);
    for (let i = 1; i <= 3; i++) {
      await projectBlame(store, { projectId: project.id, path: 'f.txt' });
      content = content.replace(/\n$/, `\nline ${i}\n`).replace(/^[^\n]*/, `top ${i}`);
      const sha = await turn(store, projectDir, `prompt ${i}`, content);
      const blame = await projectBlame(store, { projectId: project.id, path: 'f.txt' });
      expect(blame.rev).toBe(sha);
      expect(blame.lines[0]).toMatchObject({ text: `top ${i}`, sha, turn: i + 1, prompt: `prompt ${i}` });
      expect(blame.lines.at(-1)).toMatchObject({ text: `line ${i}`, sha, prompt: `prompt ${i}` });
      const plain = await gitBlame(projectDir, 'f.txt', undefined);
      expect(blame.lines.map((line) => [line.text, line.sha])).toEqual(plain.lines.map((line) => [line.text, line.sha]));
    }
  });
});
