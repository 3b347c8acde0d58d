import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../session-store.js';
import { git, openProjectStore, storesClosedAfterEach, writeFiles } from '../../testing/project-repos.js';
import { projectBlame } from './project-blame.js';
import { projectFiles } from './project-files.js';

/** One agent turn asked by `prompt` that leaves `files` as given; its project commit. */
async function turn(store: SessionStore, sessionId: string, projectDir: string, prompt: string, files: Record<string, string>): Promise<string> {
  await store.beginTurn(sessionId);
  await store.appendMessage(sessionId, { role: 'user', content: prompt });
  for (const path of Object.keys(files)) await store.snapshotBeforeEdit(sessionId, path);
  writeFiles(projectDir, files);
  await store.appendMessage(sessionId, { role: 'assistant', content: 'done' });
  const end = await store.finalizeTurn(sessionId, { writtenPaths: Object.keys(files), model: 'test-model' });
  return end.projectCommit!;
}

describe('projectBlame', () => {
  const stores = storesClosedAfterEach();

  it('names per line the turn, agent and prompt of the commit that last changed it, and "person" for a hand commit', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const one = await turn(store, 's', projectDir, 'write a\nwith detail', { 'f.txt': 'a\n' });
    const two = await turn(store, 's', projectDir, 'add b', { 'f.txt': 'a\nb\n' });
    writeFileSync(join(projectDir, 'f.txt'), 'a\nb\nmine\n');
    git(projectDir, 'commit', '-qam', 'by hand');
    const hand = git(projectDir, 'rev-parse', 'HEAD');
    const three = await turn(store, 's', projectDir, 'change b to c', { 'f.txt': 'a\nc\nmine\n' });

    const blame = await projectBlame(store, { projectId: project.id, path: 'f.txt' });
    expect(blame.rev).toBe(three);
    const messages = await store.getBranch('s');
    const userIds = messages.filter((m) => m.role === 'user').map((m) => m.id);
    expect(blame.lines).toEqual([
      { line: 1, text: 'a', sha: one, by: 'agent', sessionId: 's', turn: 1, agent: 'test-model', prompt: 'write a\nwith detail', messageId: userIds[0] },
      { line: 2, text: 'c', sha: three, by: 'agent', sessionId: 's', turn: 3, agent: 'test-model', prompt: 'change b to c', messageId: userIds[2] },
      { line: 3, text: 'mine', sha: hand, by: 'person' },
    ]);
    // At an older revision, the older answer.
    const before = await projectBlame(store, { projectId: project.id, path: 'f.txt', rev: two });
    expect(before.lines.map((l) => [l.text, l.turn, l.prompt])).toEqual([['a', 1, 'write a\nwith detail'], ['b', 2, 'add b']]);
  });

  it('keeps session and turn but gives no prompt for a session that is not the user\'s', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    writeFileSync(join(projectDir, 'g.txt'), 'x\n');
    git(projectDir, 'add', 'g.txt');
    git(projectDir, '-c', 'user.name=agent (m via Entity Memory)', '-c', 'user.email=agent@openprogram.local', 'commit', '-qm', '[agent other] turn 4: x\n\nOpenProgram-Session: other\nOpenProgram-Turn: 4');
    const blame = await projectBlame(store, { projectId: project.id, path: 'g.txt' });
    expect(blame.lines).toEqual([{ line: 1, text: 'x', sha: git(projectDir, 'rev-parse', 'HEAD'), by: 'agent', sessionId: 'other', turn: 4, agent: 'm' }]);
  });

  it('refuses paths outside the project, missing files, folders, binary files and unknown revisions, each with its code', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    writeFileSync(join(projectDir, 'bin.dat'), Buffer.from([1, 0, 2, 10]));
    git(projectDir, 'add', 'bin.dat');
    git(projectDir, 'commit', '-qm', 'binary');
    const code = (path: string, rev?: string) =>
      projectBlame(store, { projectId: project.id, path, ...(rev ? { rev } : {}) }).then(
        () => 'ok',
        (error: { code?: string; message: string }) => `${error.code}: ${error.message}`,
      );
    expect(await code('../outside.txt')).toMatch(/^BAD_REQUEST: path escapes the project folder/);
    expect(await code('/etc/passwd')).toMatch(/^BAD_REQUEST/);
    expect(await code('.git/config')).toMatch(/^BAD_REQUEST/);
    expect(await code('nope.txt')).toMatch(/^NOT_FOUND: no file nope.txt/);
    expect(await code('src')).toMatch(/^NOT_FOUND: .*it is a folder/);
    expect(await code('bin.dat')).toBe('BAD_REQUEST: bin.dat is a binary file: blame shows text files only');
    expect(await code('README.md', 'deadbeef')).toMatch(/^NOT_FOUND: no commit deadbeef/);
    expect(await code('README.md', '--output=x')).toMatch(/^BAD_REQUEST: not a revision/);
    expect(await code('README.md')).toBe('ok');
    await expect(projectBlame(store, { projectId: 'p_nope', path: 'README.md' })).rejects.toMatchObject({ code: expect.stringMatching(/NOT_FOUND|BAD_REQUEST/) });
  });

  it('refuses a file over 20,000 lines', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    writeFileSync(join(projectDir, 'big.txt'), 'x\n'.repeat(20_001));
    git(projectDir, 'add', 'big.txt');
    git(projectDir, 'commit', '-qm', 'big');
    await expect(projectBlame(store, { projectId: project.id, path: 'big.txt' })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'big.txt has 20001 lines; blame shows files of at most 20,000 lines' });
  });
});


describe('projectFiles', () => {
  const stores = storesClosedAfterEach();

  it('lists the files at HEAD or at a revision; refuses Home and an unknown revision', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    const first = git(projectDir, 'rev-parse', 'HEAD');
    writeFiles(projectDir, { 'docs/ü.md': 'x\n' });
    git(projectDir, 'add', '.');
    git(projectDir, 'commit', '-qm', 'docs');
    expect(await projectFiles(store, { projectId: project.id })).toEqual({ projectId: project.id, rev: git(projectDir, 'rev-parse', 'HEAD'), files: ['README.md', 'docs/ü.md', 'src/app.ts'], truncated: false });
    expect((await projectFiles(store, { projectId: project.id, rev: first })).files).toEqual(['README.md', 'src/app.ts']);
    await expect(projectFiles(store, { projectId: 'default' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await expect(projectFiles(store, { projectId: project.id, rev: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
