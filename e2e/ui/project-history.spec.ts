import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, captureViews, createSession, expect, git, makeProjectRepo, MODEL_NAME, mutate, query, signInBrowser, test, type ProjectSummary } from '../fixtures';
import { TimelinePage } from '../pages/timeline';

test('undo marks the commit undone on the timeline and the project page, says "Removed", and Redo waits for it', async ({ page, context, user }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'history'));
  const initial = git(dir, 'rev-parse', 'HEAD');
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'History' })).data;
  await createSession(user.api, { id: 'hist', title: 'History turn', projectId: project.id });
  await mutate(user.api, 'turn.begin', { sessionId: 'hist' });
  writeFileSync(join(dir, 'hello.txt'), 'hello from the agent\n');
  await appendMessage(user.api, 'hist', { role: 'user', content: 'Create hello.txt' });
  await appendMessage(user.api, 'hist', { role: 'assistant', content: 'Done.' });
  const finalized = await mutate<{ projectCommit: string }>(user.api, 'turn.finalize', { sessionId: 'hist', writtenPaths: ['hello.txt'], model: MODEL_NAME });
  const sha = finalized.data.projectCommit;
  await signInBrowser(context, user.api);

  const timeline = new TimelinePage(page);
  await timeline.goto('hist');
  const turn = timeline.turn(1);
  const undo = turn.getByRole('button', { name: 'Undo file edits of turn 1' });
  const redo = turn.getByRole('button', { name: 'Redo file edits of turn 1' });
  await expect(undo).toBeEnabled();
  await expect(redo).toBeDisabled();
  await expect(turn.getByText('Undone', { exact: true })).toHaveCount(0);

  await undo.click();
  await expect(turn.getByRole('status')).toHaveText('Removed hello.txt.');
  expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(initial);
  expect(git(dir, 'log', '--format=%H')).not.toContain(sha);
  const listed = await query<{ commits: { fileEdits: string | null }[] }>(user.api, 'timeline.list', { sessionId: 'hist' });
  expect(listed.data.commits[0]!.fileEdits).toBe('undone');
  await expect(turn.getByText('Undone', { exact: true })).toBeVisible();
  await expect(turn).toContainText('no longer lists it');
  await expect(undo).toBeDisabled();
  await expect(redo).toBeEnabled();
  await captureViews(page, 'history-timeline-undone');
  // Still undone after a reload: the mark comes from the server.
  await page.reload();
  await expect(timeline.turn(1).getByText('Undone', { exact: true })).toBeVisible();
  await expect(timeline.turn(1).getByRole('button', { name: 'Redo file edits of turn 1' })).toBeEnabled();

  // The project page lists it anyway, marked, with its diff.
  await page.goto(`/projects/${project.id}`);
  const commits = page.getByRole('list', { name: 'Agent commits' });
  const item = commits.getByRole('listitem').filter({ hasText: 'turn 1' });
  await expect(item).toHaveCount(1);
  await expect(item.getByText('Undone', { exact: true })).toBeVisible();
  await item.getByRole('button', { name: 'Show diff' }).click();
  const diff = item.getByRole('group', { name: `Diff of ${sha.slice(0, 8)}` });
  await expect(diff).toContainText('hello.txt');
  await expect(diff).toContainText('hello from the agent');
  await captureViews(page, 'history-project-undone');

  // Redo: back on the branch, worded for what it did, and Undo is the way again.
  await timeline.goto('hist');
  await timeline.turn(1).getByRole('button', { name: 'Redo file edits of turn 1' }).click();
  await expect(timeline.turn(1).getByRole('status')).toHaveText('Recreated hello.txt.');
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(sha);
  await expect(timeline.turn(1).getByText('Undone', { exact: true })).toHaveCount(0);
  await expect(timeline.turn(1).getByRole('button', { name: 'Undo file edits of turn 1' })).toBeEnabled();
  await expect(timeline.turn(1).getByRole('button', { name: 'Redo file edits of turn 1' })).toBeDisabled();
  await page.goto(`/projects/${project.id}`);
  await expect(page.getByRole('list', { name: 'Agent commits' }).getByText('Undone', { exact: true })).toHaveCount(0);
});
