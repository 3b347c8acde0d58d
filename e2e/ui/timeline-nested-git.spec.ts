import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, captureViews, createSession, expect, git, makeProjectRepo, mutate, signInBrowser, test, type FinalizeTurnResult, type ProjectSummary } from '../fixtures';
import { TimelinePage } from '../pages/timeline';

// Issue 23, hardening: a turn that puts a git repository or a .gitmodules into the project is flagged on the timeline.

test('the timeline warns of a repository and a .gitmodules a turn added to the project, and of nothing on a plain turn', async ({ user, page, context }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'nested-git'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'Nested Git' })).data;
  await createSession(user.api, { id: 'nested-git', projectId: project.id });

  // Turn 1: an agent with its own shell runs `git init` in a folder and writes a .gitmodules; it reports no paths.
  expect((await mutate(user.api, 'turn.begin', { sessionId: 'nested-git' })).status).toBe(200);
  await appendMessage(user.api, 'nested-git', { role: 'user', content: 'Set up the hook scripts' });
  mkdirSync(join(dir, 'hooks'));
  git(join(dir, 'hooks'), 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'hooks', 'run.sh'), 'echo hi\n');
  git(join(dir, 'hooks'), 'add', 'run.sh');
  git(join(dir, 'hooks'), 'commit', '-q', '-m', 'hooks');
  writeFileSync(join(dir, '.gitmodules'), '[submodule "hooks"]\n\tpath = hooks\n\turl = ./hooks\n');
  await appendMessage(user.api, 'nested-git', { role: 'assistant', content: 'Done.' });
  expect((await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'nested-git', model: 'e2e-model' })).status).toBe(200);

  // Turn 2: a plain file.
  expect((await mutate(user.api, 'turn.begin', { sessionId: 'nested-git' })).status).toBe(200);
  await appendMessage(user.api, 'nested-git', { role: 'user', content: 'Add notes' });
  writeFileSync(join(dir, 'notes.md'), 'notes\n');
  await appendMessage(user.api, 'nested-git', { role: 'assistant', content: 'Added.' });
  expect((await mutate(user.api, 'turn.finalize', { sessionId: 'nested-git', writtenPaths: ['notes.md'], model: 'e2e-model' })).status).toBe(200);

  await signInBrowser(context, user.api);
  const timeline = new TimelinePage(page);
  await timeline.goto('nested-git');
  const warning = timeline.turn(1).getByRole('note', { name: 'Git metadata added' });
  await expect(warning).toBeVisible();
  await expect(warning.getByRole('listitem')).toHaveText(['.gitmodules', 'hooks/.git']);
  await expect(timeline.turn(2).getByRole('note', { name: 'Git metadata added' })).toHaveCount(0);
  await warning.scrollIntoViewIfNeeded();
  await captureViews(page, 'timeline-nested-git');
});
