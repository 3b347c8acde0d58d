import { existsSync, realpathSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import {
  appendMessage,
  captureViews,
  createSession,
  expect,
  makeProjectRepo,
  mutate,
  query,
  signInBrowser,
  test,
  workspaceOf,
  type Message,
  type ProjectSummary,
} from '../fixtures';
import { ProjectsPage } from '../pages/projects';
import { TimelinePage } from '../pages/timeline';
import { agentTurn } from './timeline-seed';

async function projectsOf(api: Parameters<typeof query>[0]): Promise<ProjectSummary[]> {
  return (await query<ProjectSummary[]>(api, 'project.list')).data;
}

test('a moved project folder shows as missing, is repaired from the Projects page, and the record appears in the session', async ({ user, page, context }) => {
  const before = realpathSync(makeProjectRepo(user.id, 'pj-before'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: before, name: 'Mover' })).data;
  await createSession(user.api, { id: 'pj-mover', projectId: project.id });
  await appendMessage(user.api, 'pj-mover', { role: 'user', content: 'hello from the moved project' });
  const after = join(realpathSync(workspaceOf(user.id)), 'pj-after');
  renameSync(before, after);

  await signInBrowser(context, user.api);
  const projects = new ProjectsPage(page);
  await projects.goto();
  await expect(page.getByRole('heading', { name: 'Projects', level: 1 })).toBeVisible();
  const row = projects.project('Mover');
  await expect(row.getByText('Folder missing')).toBeVisible();
  await expect(row.getByText('1 session')).toBeVisible();
  await captureViews(page, 'projects-missing');

  await projects.relocate('Mover', after);
  await expect(row.getByText('Folder missing')).toHaveCount(0);
  await expect(row.getByText(after)).toBeVisible();
  expect((await projectsOf(user.api)).find((p) => p.id === project.id)).toMatchObject({ path: after, pathMissing: false });
  const nodes = (await query<{ messages: Message[] }>(user.api, 'message.nodes', { sessionId: 'pj-mover' })).data.messages;
  const record = nodes.find((node) => node.name === 'project/relocate');
  expect(record).toMatchObject({ role: 'tool', content: `${before} → ${after}`, metadata: { project_id: project.id, old_path: before, new_path: after } });
  expect(existsSync(after)).toBe(true);
});

test('the auto-commit switch, and unregister that says history and sessions stay', async ({ user, page, context }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'pj-switch'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'Switchy' })).data;
  await signInBrowser(context, user.api);
  const projects = new ProjectsPage(page);
  await projects.goto();
  const toggle = projects.autoCommit('Switchy');
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-checked', 'false');
  await expect.poll(async () => (await projectsOf(user.api)).find((p) => p.id === project.id)?.autoCommit).toBe(false);
  // Home is the workspace, not a repository: no switch, no unregister.
  await expect(projects.project('Home').getByRole('switch')).toHaveCount(0);

  await projects.project('Switchy').getByRole('button', { name: 'Unregister Switchy' }).click();
  const dialog = projects.unregisterDialog();
  await expect(dialog).toContainText('its git history and the sessions of this project stay');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(projects.project('Switchy')).toBeVisible();
  await projects.project('Switchy').getByRole('button', { name: 'Unregister Switchy' }).click();
  await dialog.getByRole('button', { name: 'Unregister' }).click();
  await expect(projects.project('Switchy')).toHaveCount(0);
  expect((await projectsOf(user.api)).map((p) => p.id)).not.toContain(project.id);
  // The folder and its history stay.
  expect(existsSync(join(dir, '.git'))).toBe(true);
});

test("a project's agent commits name their session turn and open it on the timeline", async ({ user, page, context }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'pj-commits'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'Provenance' })).data;
  await createSession(user.api, { id: 'pj-prov', projectId: project.id });
  const turns = [];
  for (let i = 1; i <= 3; i++) turns.push(await agentTurn(user.api, 'pj-prov', `Write file ${i}`, { projectDir: dir, files: { [`f${i}.txt`]: `content ${i}\n` } }));
  await mutate(user.api, 'session.update', { id: 'pj-prov', title: 'Provenance chat' });

  await signInBrowser(context, user.api);
  await page.goto(`/projects/${project.id}`);
  await expect(page.getByRole('heading', { name: 'Provenance', level: 1 })).toBeVisible();
  const commits = page.getByRole('list', { name: 'Agent commits' }).getByRole('listitem');
  await expect(commits).toHaveCount(3);
  await expect(commits.first()).toContainText('[agent pj-prov] turn 3: Write file 3');
  await expect(commits.first()).toContainText(turns[2]!.result.projectCommit!.slice(0, 8));
  await captureViews(page, 'project-commits');
  const link = page.getByRole('link', { name: 'Provenance chat · turn 2' });
  await expect(link).toHaveAttribute('href', '/sessions/pj-prov/timeline#turn-2');
  await link.click();
  await expect(page).toHaveURL('/sessions/pj-prov/timeline#turn-2');
  const timeline = new TimelinePage(page);
  // And back: the turn names the same project commit.
  await expect(timeline.turn(2).getByText(turns[1]!.result.projectCommit!.slice(0, 8))).toBeVisible();
  await expect(timeline.turn(2).locator('.diff-code-insert')).toHaveText(['content 2']);
  await captureViews(page, 'timeline-anchor');
});

test("another user's project page is a 404", async ({ user, adminApi, page, context }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'pj-private'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'Private' })).data;
  const { createUser } = await import('../fixtures');
  const other = await createUser(adminApi);
  await signInBrowser(context, other.api);
  expect((await page.goto(`/projects/${project.id}`))?.status()).toBe(404);
  await page.goto('/projects');
  await expect(page.getByText('Private')).toHaveCount(0);
  await other.api.dispose();
});
