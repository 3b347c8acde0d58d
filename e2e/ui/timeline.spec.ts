import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  appendMessage,
  captureViews,
  createSession,
  expect,
  getSession,
  makeProjectRepo,
  mutate,
  query,
  signInBrowser,
  test,
  type FinalizeTurnResult,
  type ProjectSummary,
} from '../fixtures';
import { TimelinePage } from '../pages/timeline';
import { agentTurn } from './timeline-seed';

test('a session of several turns with a fork shows every turn, its messages and its project commit with the diff', async ({ user, page, context }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'tl-app'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'Timeline App' })).data;
  await createSession(user.api, { id: 'tl-turns', projectId: project.id });
  const t1 = await agentTurn(user.api, 'tl-turns', 'Create alpha.txt', { projectDir: dir, files: { 'alpha.txt': 'alpha line\n' } });
  const t2 = await agentTurn(user.api, 'tl-turns', 'Create beta.txt', { projectDir: dir, files: { 'beta.txt': 'beta line one\nbeta line two\n' } });
  const t3 = await agentTurn(user.api, 'tl-turns', 'Change alpha.txt', { projectDir: dir, files: { 'alpha.txt': 'alpha line changed\n' } });
  for (const turn of [t1, t2, t3]) expect(turn.result.projectCommit).toMatch(/^[0-9a-f]{40}$/);
  // A fork: turn 2's reply retried, committed as turn 4.
  const retry = await mutate<{ parentId: string }>(user.api, 'branch.retry', { sessionId: 'tl-turns', assistantId: t2.reply.id });
  await appendMessage(user.api, 'tl-turns', { role: 'assistant', content: 'A second try at beta', parentId: retry.data.parentId });
  const t4 = (await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'tl-turns' })).data;
  expect(t4.turn).toBe(4);

  await signInBrowser(context, user.api);
  const timeline = new TimelinePage(page);
  await timeline.goto('tl-turns');
  await expect(page.getByRole('heading', { name: 'Timeline', level: 1 })).toBeVisible();
  // Newest first, and session init is no turn.
  await expect(timeline.turns()).toHaveCount(4);
  await expect(timeline.turns().getByRole('heading')).toHaveText(['Turn 4', 'Turn 3', 'Turn 2', 'Turn 1']);

  const second = timeline.turn(2);
  await expect(second.getByText('turn: Create beta.txt', { exact: true })).toBeVisible();
  const added = second.getByRole('list', { name: 'Messages added' }).getByRole('listitem');
  await expect(added).toHaveText(['userCreate beta.txt', 'assistantDone: Create beta.txt']);
  await expect(second.getByText('Fork: a reply of this turn was retried')).toBeVisible();
  const project2 = second.getByRole('region', { name: 'Project commit' });
  await expect(project2.getByText('[agent tl-turns] turn 2: Create beta.txt')).toBeVisible();
  await expect(project2.getByText(t2.result.projectCommit!.slice(0, 8))).toBeVisible();
  await expect(project2.getByText(/1 file changed/)).toBeVisible();
  // The diff, rendered by react-diff-view from the unified patch.
  const diff2 = project2.getByRole('group', { name: `Diff of ${t2.result.projectCommit!.slice(0, 8)}` });
  await expect(diff2.getByText('beta.txt', { exact: true })).toBeVisible();
  await expect(diff2.locator('.diff-code-insert')).toHaveText(['beta line one', 'beta line two']);
  const diff3 = timeline.turn(3).getByRole('group', { name: /^Diff of / });
  await expect(diff3.locator('.diff-code-delete')).toHaveText(['alpha line']);
  await expect(diff3.locator('.diff-code-insert')).toHaveText(['alpha line changed']);
  await expect(timeline.turn(1).locator('.diff-code-insert')).toHaveText(['alpha line']);
  // The retry turn made no project commit and says so; the fork is marked where it happened only.
  // A finalize without turn.begin: the project was not watched, and the timeline says so.
  await expect(timeline.turn(4).getByText(/^No project commit: the turn was recorded without turn\.begin/)).toBeVisible();
  await expect(timeline.turn(4).getByText(/^Fork:/)).toHaveCount(0);
  await expect(timeline.openAsOf(3)).toHaveAttribute('href', `/sessions/tl-turns/at/${t3.result.sessionCommit}`);
  await captureViews(page, 'timeline');
});

test('opening turn 2 of 5 shows exactly the first two turns, even after later turns and a new branch', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'tl-at' });
  const turns = [];
  for (let i = 1; i <= 5; i++) turns.push(await agentTurn(user.api, 'tl-at', `Question ${i}`));
  // Later: a sixth turn, and a new branch from turn 1's reply.
  await agentTurn(user.api, 'tl-at', 'Question 6');
  await agentTurn(user.api, 'tl-at', 'A new branch', { parentId: turns[0]!.reply.id });
  expect((await query<unknown[]>(user.api, 'branch.list', { sessionId: 'tl-at' })).data).toHaveLength(2);

  await signInBrowser(context, user.api);
  const timeline = new TimelinePage(page);
  await timeline.goto('tl-at');
  await timeline.openAsOf(2).click();
  await expect(page).toHaveURL(`/sessions/tl-at/at/${turns[1]!.result.sessionCommit}`);
  await expect(timeline.banner()).toContainText('as it was at turn 2');
  await expect(timeline.banner()).toContainText('read-only');
  await expect(timeline.messages()).toHaveCount(4);
  await expect(timeline.messages().locator('p')).toHaveText(['Question 1', 'Done: Question 1\nDetails follow.', 'Question 2', 'Done: Question 2\nDetails follow.']);
  // The branch added later did not exist then: no fork shows.
  await expect(page.getByText(/Branch \d of \d/)).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Back to now' })).toHaveAttribute('href', '/sessions/tl-at');
  await captureViews(page, 'at-turn');

  await page.getByRole('link', { name: 'Previous turn' }).click();
  await expect(page).toHaveURL(`/sessions/tl-at/at/${turns[0]!.result.sessionCommit}`);
  await expect(timeline.messages()).toHaveCount(2);
  await expect(page.getByRole('link', { name: 'Previous turn' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Next turn' }).click();
  await expect(page).toHaveURL(`/sessions/tl-at/at/${turns[1]!.result.sessionCommit}`);
  await page.getByRole('link', { name: 'Next turn' }).click();
  await expect(page).toHaveURL(`/sessions/tl-at/at/${turns[2]!.result.sessionCommit}`);
  await expect(timeline.messages()).toHaveCount(6);
});

test('the branch graph marks the head, and a tip link switches to its branch', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'tl-graph' });
  const t1 = await agentTurn(user.api, 'tl-graph', 'Root question');
  await agentTurn(user.api, 'tl-graph', 'Follow-up');
  const retry = await mutate<{ parentId: string }>(user.api, 'branch.retry', { sessionId: 'tl-graph', assistantId: t1.reply.id });
  const alt = await appendMessage(user.api, 'tl-graph', { role: 'assistant', content: 'Another answer', parentId: retry.data.parentId });
  await mutate(user.api, 'turn.finalize', { sessionId: 'tl-graph' });
  const before = await getSession(user.api, 'tl-graph');
  expect(before.headId).toBe(alt.id);
  const branches = (await query<Array<{ headId: string; name: string; current: boolean }>>(user.api, 'branch.list', { sessionId: 'tl-graph' })).data;
  const other = branches.find((branch) => !branch.current)!;

  await signInBrowser(context, user.api);
  const timeline = new TimelinePage(page);
  await timeline.goto('tl-graph');
  await expect(timeline.graph()).toBeVisible();
  await expect(timeline.graph().getByRole('link')).toHaveCount(2);
  await expect(timeline.graph().getByRole('link', { name: /\(current\)$/ })).toHaveCount(1);
  await captureViews(page, 'graph');
  await timeline.tip(other.name).click();
  await expect(page).toHaveURL('/sessions/tl-graph');
  expect((await getSession(user.api, 'tl-graph')).headId).toBe(other.headId);
  const branch = (await query<Array<{ id: string }>>(user.api, 'message.branch', { sessionId: 'tl-graph' })).data;
  expect(branch[branch.length - 1]!.id).toBe(other.headId);
});

test('the graph of 200 branches collapses long runs and keeps every tip a link', async ({ user, page, context }) => {
  test.setTimeout(180_000);
  await createSession(user.api, { id: 'tl-wide' });
  const root = await agentTurn(user.api, 'tl-wide', 'Where it all starts');
  for (let b = 1; b <= 200; b++) {
    let parent = root.reply.id;
    for (let m = 0; m < 5; m++) {
      parent = (await appendMessage(user.api, 'tl-wide', { role: m % 2 === 0 ? 'user' : 'assistant', content: `branch ${b} message ${m}`, parentId: parent })).id;
    }
  }
  await mutate(user.api, 'turn.finalize', { sessionId: 'tl-wide' });
  await signInBrowser(context, user.api);
  const timeline = new TimelinePage(page);
  await timeline.goto('tl-wide');
  // 200 tips (the root's reply forks, it is no tip), one of them current.
  await expect(timeline.graph().getByRole('link')).toHaveCount(200);
  await expect(timeline.graph().getByRole('link', { name: /\(current\)$/ })).toHaveCount(1);
  await expect(timeline.graph().locator('text').filter({ hasText: '… 3 messages' })).toHaveCount(200);
  await expect(page.getByText('1002 messages')).toBeVisible();
  await captureViews(page, 'graph-200');
});

test('a turn on a dirty tree shows why it made no project commit', async ({ user, page, context }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'tl-dirty'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir })).data;
  await createSession(user.api, { id: 'tl-dirty', projectId: project.id });
  // The person's unfinished edit, then the agent writes the same file.
  writeFileSync(join(dir, 'README.md'), '# my unfinished edit\n');
  const turn = await agentTurn(user.api, 'tl-dirty', 'Rewrite the README', { projectDir: dir, files: { 'README.md': '# the agent version\n' } });
  expect(turn.result.projectCommitSkipped?.reason).toBe('dirty_tree');

  await signInBrowser(context, user.api);
  const timeline = new TimelinePage(page);
  await timeline.goto('tl-dirty');
  await expect(timeline.turn(1).getByRole('region', { name: 'Project commit' })).toHaveText(
    "No project commit: the project had uncommitted changes before the turn, so the agent's edits were left in the working tree.",
  );
});

test("another user's session, or a sha of theirs, is a 404", async ({ user, adminApi, page, context }) => {
  await createSession(user.api, { id: 'tl-mine' });
  const mine = await agentTurn(user.api, 'tl-mine', 'Private question');
  const { createUser } = await import('../fixtures');
  const other = await createUser(adminApi);
  await createSession(other.api, { id: 'tl-theirs' });
  await agentTurn(other.api, 'tl-theirs', 'Their question');

  await signInBrowser(context, other.api);
  for (const path of ['/sessions/tl-mine/timeline', `/sessions/tl-mine/at/${mine.result.sessionCommit}`, `/sessions/tl-theirs/at/${mine.result.sessionCommit}`, '/sessions/tl-theirs/at/not-a-sha']) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(404);
    await expect(page.getByText('Private question')).toHaveCount(0);
  }
  // Their own timeline opens.
  expect((await page.goto('/sessions/tl-theirs/timeline'))?.status()).toBe(200);
  await other.api.dispose();
});
