import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, captureViews, createSession, expect, getSession, git, makeProjectRepo, MODEL_NAME, mutate, signInBrowser, test, type ProjectSummary } from '../fixtures';
import { SessionPage } from '../pages/session';
import { TimelinePage } from '../pages/timeline';
import { filesOf, treeOf } from '../../lib/store/testing/folder-snapshot';

// DESIGN §14 "Fork from a turn": a new session from a turn plus a worktree of the project at that
// turn's project commit, where the fork's chat commits; the original folder is left alone.

test('Fork from here at turn 2 of 4: the worktree is turn 2\'s project commit byte for byte, a chat turn in the fork commits there and not in the original, deleting the fork removes it', async ({ context, page, user }) => {
  test.setTimeout(180_000);
  const folder = realpathSync(makeProjectRepo(user.id, 'fork-app'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: folder, name: 'Fork App' })).data;
  await createSession(user.api, { id: 'forked', title: 'Four turns', projectId: project.id });
  const projectCommits: string[] = [];
  for (let n = 1; n <= 4; n++) {
    await mutate(user.api, 'turn.begin', { sessionId: 'forked' });
    writeFileSync(join(folder, `f${n}.txt`), `file ${n}\n`);
    writeFileSync(join(folder, 'shared.txt'), `after turn ${n}\n`);
    await appendMessage(user.api, 'forked', { role: 'user', content: `Write file ${n}` });
    await appendMessage(user.api, 'forked', { role: 'assistant', content: `Wrote file ${n}.` });
    const done = await mutate<{ projectCommit: string }>(user.api, 'turn.finalize', { sessionId: 'forked', writtenPaths: [`f${n}.txt`, 'shared.txt'], model: MODEL_NAME });
    projectCommits.push(done.data.projectCommit);
  }
  const originalHead = git(folder, 'rev-parse', 'HEAD');
  expect(originalHead).toBe(projectCommits[3]);

  await signInBrowser(context, user.api);
  // The session page offers it on every reply.
  const session = new SessionPage(page);
  await session.goto('forked');
  await expect(session.message('Assistant')).toHaveCount(4);
  await expect(session.message('Assistant').nth(1).getByRole('button', { name: 'Fork from here' })).toBeVisible();

  const timeline = new TimelinePage(page);
  await timeline.goto('forked');
  await timeline.turn(2).getByRole('button', { name: 'Fork from here' }).click();
  const dialog = page.getByRole('dialog', { name: 'Fork from here' });
  await expect(dialog.getByRole('radio', { name: /In a git worktree of its own/ })).toBeChecked();
  await captureViews(page, 'fork-dialog');
  // A folder inside the project is refused in the dialog, and nothing is made.
  await dialog.getByRole('textbox', { name: 'Worktree folder (optional)' }).fill(join(folder, 'inside'));
  await dialog.getByRole('button', { name: 'Create fork' }).click();
  await expect(dialog.getByRole('alert')).toContainText('inside the project folder');
  expect(git(folder, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  await dialog.getByRole('textbox', { name: 'Worktree folder (optional)' }).fill('');
  await dialog.getByRole('button', { name: 'Create fork' }).click();

  await expect(page).toHaveURL(/\/sessions\/[0-9a-f]{16}$/);
  const forkId = new URL(page.url()).pathname.split('/').pop()!;
  const fork = (await getSession(user.api, forkId)) as unknown as { projectId: string; fork: { of: string; turn: number; projectCommit: string; worktree: string; branch: string } };
  expect(fork.projectId).toBe(project.id);
  expect(fork.fork).toMatchObject({ of: 'forked', turn: 2, projectCommit: projectCommits[1] });
  expect(fork.fork.worktree).toBe(join(`${folder}.forks`, forkId));
  await expect(page.getByRole('region', { name: 'Fork' })).toContainText(fork.fork.worktree);
  await captureViews(page, 'fork-page');
  await expect(session.message('User')).toHaveCount(2);
  await expect(session.message('Assistant').last()).toContainText('Wrote file 2.');
  expect(filesOf(fork.fork.worktree)).toEqual(treeOf(folder, projectCommits[1]!));

  // A chat turn in the fork writes and commits in its worktree.
  await page.getByRole('textbox', { name: 'Message' }).fill('Add one [[tool:write_file {"path":"fork.txt","content":"from the fork\\n"}]]');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(session.message('Assistant').last()).toContainText('Tool result', { timeout: 30_000 });
  await expect.poll(async () => (await getSession(user.api, forkId)).status, { timeout: 30_000 }).toBe('idle');
  expect(readFileSync(join(fork.fork.worktree, 'fork.txt'), 'utf8')).toBe('from the fork\n');
  const forkCommit = git(fork.fork.worktree, 'rev-parse', 'HEAD');
  expect(git(fork.fork.worktree, 'rev-parse', 'HEAD^')).toBe(projectCommits[1]);
  expect(git(fork.fork.worktree, 'log', '-1', '--format=%an|%B')).toContain(`OpenProgram-Session: ${forkId}`);
  expect(git(folder, 'rev-parse', fork.fork.branch)).toBe(forkCommit);
  expect(git(folder, 'rev-parse', 'HEAD')).toBe(originalHead);
  expect(existsSync(join(folder, 'fork.txt'))).toBe(false);
  expect(git(folder, 'status', '--porcelain')).toBe('');

  expect((await mutate(user.api, 'session.delete', { id: forkId })).status).toBe(200);
  expect(existsSync(fork.fork.worktree)).toBe(false);
  expect(git(folder, 'worktree', 'list', '--porcelain')).not.toContain(fork.fork.worktree);
  expect(git(folder, 'rev-parse', fork.fork.branch)).toBe(forkCommit);
});
