import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { appendMessage, captureViews, createSession, expect, makeProjectRepo, mutate, signInBrowser, test, type FinalizeTurnResult, type ProjectSummary } from '../fixtures';

/** An agent's answer as its own turn: it writes `files` into the project, then the turn commits them there. */
async function answerTurn(api: APIRequestContext, sessionId: string, dir: string, parentId: string, content: string, files: Record<string, string>) {
  expect((await mutate(api, 'turn.begin', { sessionId })).status).toBe(200);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  const reply = await appendMessage(api, sessionId, { role: 'assistant', content, parentId });
  const end = await mutate<FinalizeTurnResult>(api, 'turn.finalize', { sessionId, writtenPaths: Object.keys(files), model: 'e2e-model' });
  expect(end.data.projectCommit).toMatch(/^[0-9a-f]{40}$/);
  return reply;
}

test('Compare from the fork switcher: two retries of one answer aligned with their differences marked, each one\u2019s project diff, stacked at 390 px', async ({ user, page, context }) => {
  test.setTimeout(180_000);
  const dir = realpathSync(makeProjectRepo(user.id, 'compare-app'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'Compare App' })).data;
  await createSession(user.api, { id: 'cmp', title: 'Colours', projectId: project.id });
  const question = await appendMessage(user.api, 'cmp', { role: 'user', content: 'Which colour is the sky? Write it to colour.txt.' });
  const first = await answerTurn(user.api, 'cmp', dir, question.id, 'The sky is blue today, I wrote it down.', { 'colour.txt': 'blue\n' });
  // Retry: a second answer to the same question, beside the first, with edits of its own.
  const retry = await mutate<{ parentId: string }>(user.api, 'branch.retry', { sessionId: 'cmp', assistantId: first.id });
  expect(retry.data.parentId).toBe(question.id);
  const second = await answerTurn(user.api, 'cmp', dir, question.id, 'The sky is green today, I wrote it down.', { 'colour.txt': 'green\n', 'notes.txt': 'a second try\n' });

  await signInBrowser(context, user.api);
  await page.goto('/sessions/cmp');
  await expect(page.getByRole('group', { name: 'Branch 2 of 2' })).toBeVisible();
  await page.getByRole('button', { name: 'Compare with…' }).click();
  await page.getByRole('menuitem', { name: 'Branch 1 of 2' }).click();
  // The two ends are resolved to their tips, then the page renders on the server: slow on a busy machine.
  await expect(page).toHaveURL(`/sessions/cmp/compare?a=${second.id}&b=${first.id}`, { timeout: 60_000 });
  await expect(page.getByRole('heading', { name: 'Compare branches', level: 1 })).toBeVisible();

  // The question both share, once and folded.
  const main = page.getByRole('main');
  const common = main.getByText(/^Common message/);
  await expect(main.getByText('Which colour is the sky?')).toBeHidden();
  await common.click();
  await expect(main.getByText('Which colour is the sky?')).toBeVisible();
  await expect(main.getByText('Which colour is the sky?')).toHaveCount(1);
  const pairs = main.getByRole('list', { name: 'Aligned messages' }).getByRole('listitem');
  await expect(pairs).toHaveCount(1);
  const cellA = pairs.first().getByRole('article', { name: 'Branch A: Assistant' });
  const cellB = pairs.first().getByRole('article', { name: 'Branch B: Assistant' });
  await expect(cellA).toContainText('The sky is green today, I wrote it down.');
  await expect(cellB).toContainText('The sky is blue today, I wrote it down.');
  // Only the differing word is marked, on each side, as a deletion and an insertion.
  await expect(cellA.getByRole('deletion')).toHaveText(['green']);
  await expect(cellA.getByRole('insertion')).toHaveCount(0);
  await expect(cellB.getByRole('insertion')).toHaveText(['blue']);
  await expect(cellB.getByRole('deletion')).toHaveCount(0);
  // Not by colour alone: struck through and underlined.
  expect(await cellA.getByRole('deletion').evaluate((node) => getComputedStyle(node).textDecorationLine)).toContain('line-through');
  expect(await cellB.getByRole('insertion').evaluate((node) => getComputedStyle(node).textDecorationLine)).toContain('underline');

  // Each branch's own project changes: the retry changed colour.txt and added notes.txt; the first added colour.txt.
  const projectA = page.getByRole('region', { name: 'Project changes of branch A (1 commit)' });
  const projectB = page.getByRole('region', { name: 'Project changes of branch B (1 commit)' });
  await expect(projectA.getByRole('figure')).toHaveCount(2);
  await expect(projectA.getByRole('figure').filter({ hasText: 'colour.txt' })).toContainText('modified');
  await expect(projectA.getByRole('figure').filter({ hasText: 'colour.txt' })).toContainText('green');
  await expect(projectA.getByRole('figure').filter({ hasText: 'notes.txt' })).toContainText('a second try');
  await expect(projectB.getByRole('figure')).toHaveCount(1);
  await expect(projectB.getByRole('figure')).toContainText('colour.txt');
  await expect(projectB.getByRole('figure')).toContainText('added');
  await expect(projectB.getByRole('figure')).toContainText('blue');
  await expect(projectB).not.toContainText('notes.txt');
  await captureViews(page, 'compare');

  // At 390 px the two columns stack: branch B's cell and project diff below branch A's.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [above, below] of [[cellA, cellB], [projectA, projectB]] as const) {
    const [a, b] = [await above.boundingBox(), await below.boundingBox()];
    expect(b!.y).toBeGreaterThanOrEqual(a!.y + a!.height);
    expect(b!.x).toBeCloseTo(a!.x, 0);
  }
  const scroll = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
  expect(scroll.doc).toBeLessThanOrEqual(scroll.view);

  // The same comparison from the branch graph: the current branch against the other tip, by its name.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/sessions/cmp/timeline');
  await expect(page.getByRole('img', { name: 'Branch graph' })).toBeVisible();
  await page.getByRole('button', { name: 'Compare with…' }).click();
  await page.getByRole('menuitem', { name: 'main' }).click();
  await expect(page).toHaveURL(`/sessions/cmp/compare?a=${second.id}&b=${first.id}`, { timeout: 60_000 });
  await expect(page.getByRole('main').getByRole('article', { name: 'Branch B: Assistant' }).getByRole('insertion')).toHaveText(['blue']);
});
