import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { captureViews, e2eScratchDir, expect, signInBrowser, stateDirOf, test, workspaceOf } from '../fixtures';
import type { ImportPage } from '../pages/import';
import { makeOpenProgramState } from '../../lib/import/testing/openprogram-state';

/** Picks an OpenProgram state folder on the Import page and imports it, the page naming what it took. */
async function importStateFolder(importPage: ImportPage, folder: string) {
  await importPage.goto();
  await importPage.chooseFolder(folder);
  await expect(importPage.page.getByText('OpenProgram state directory “state” chosen')).toBeVisible();
  await importPage.submit();
  await expect(importPage.page.getByText('Imported OpenProgram state directory “state”.')).toBeVisible();
}

test('an OpenProgram state directory picked as a folder comes in whole: its sessions, a fork, the project-bound one with its history; again adds nothing', async ({ user, page, context, importPage, sidebar, sessionPage: session }) => {
  const root = mkdtempSync(join(e2eScratchDir(), 'import-openprogram-'));
  // Its project lives where this user's projects may: the workspace.
  mkdirSync(workspaceOf(user.id), { recursive: true, mode: 0o700 }); // the server makes it at the first request
  const state = await makeOpenProgramState(root, { workspace: realpathSync(workspaceOf(user.id)) });
  await signInBrowser(context, user.api);

  await importStateFolder(importPage, state.stateDir);
  await expect(importPage.figure('Sessions added')).toHaveText('3');
  await expect(importPage.report.getByText('Nothing was left out.')).toBeVisible();
  await captureViews(page, 'import-openprogram-report');

  for (const title of ['Pick a colour', 'please write notes.md', 'What files are in src?']) await expect(sidebar.row(title)).toBeVisible();
  await sidebar.row('Pick a colour').click();
  // The first session page of a fresh server on a shared machine can take longer than 5 s.
  await page.waitForURL(/\/sessions\/op-fork/, { timeout: 20_000 });
  await expect(session.title).toHaveText('Pick a colour', { timeout: 20_000 });
  await expect(session.fork(2, 2)).toBeVisible();
  await expect(page.getByText('Green')).toBeVisible();
  await captureViews(page, 'import-openprogram-session');
  await sidebar.row('please write notes.md').click();
  await expect(session.message('Assistant')).toContainText('done');

  // Moved in with its git history as it was, at the project layout, its location recorded.
  const data = stateDirOf(user.id);
  const bound = join(data, 'sessions', 'projects', state.projectId, 'op-bound');
  const git = (cwd: string) => execFileSync('git', ['for-each-ref'], { cwd, encoding: 'utf8' });
  expect(git(bound)).toBe(git(state.boundRepo));
  expect(JSON.parse(readFileSync(join(data, 'sessions', 'locations.json'), 'utf8'))).toMatchObject({ 'op-bound': bound });

  await importStateFolder(importPage, state.stateDir);
  await expect(importPage.figure('Sessions added')).toHaveText('0');
  await expect(importPage.figure('Unchanged')).toHaveText('3');
});
