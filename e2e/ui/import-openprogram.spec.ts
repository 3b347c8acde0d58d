import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { captureViews, e2eScratchDir, expect, signInBrowser, stateDirOf, test, workspaceOf } from '../fixtures';
import { SessionPage } from '../pages/session';
import { Sidebar } from '../pages/sidebar';
import { makeOpenProgramState } from '../../lib/import/testing/openprogram-state';

function reportFigure(page: Page, label: string) {
  const report = page.getByRole('region', { name: 'Import report' });
  return report.locator('div', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
}

async function importFolder(page: Page, folder: string) {
  await page.goto('/import');
  await expect(page.getByRole('heading', { name: 'Import', level: 1 })).toBeVisible();
  await page.getByLabel('Folder to import').setInputFiles(folder);
  await expect(page.getByText('OpenProgram state directory “state” chosen')).toBeVisible();
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(page.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '100', { timeout: 30_000 });
  await expect(page.getByText('Imported OpenProgram state directory “state”.')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Import report' })).toBeVisible();
}

test('an OpenProgram state directory picked as a folder comes in whole: its sessions, a fork, the project-bound one with its history; again adds nothing', async ({ user, page, context }) => {
  const root = mkdtempSync(join(e2eScratchDir(), 'import-openprogram-'));
  // Its project lives where this user's projects may: the workspace.
  mkdirSync(workspaceOf(user.id), { recursive: true, mode: 0o700 }); // the server makes it at the first request
  const state = await makeOpenProgramState(root, { workspace: realpathSync(workspaceOf(user.id)) });
  await signInBrowser(context, user.api);

  await importFolder(page, state.stateDir);
  await expect(reportFigure(page, 'Sessions added')).toHaveText('3');
  await expect(page.getByRole('region', { name: 'Import report' }).getByText('Nothing was left out.')).toBeVisible();
  await captureViews(page, 'import-openprogram-report');

  const sidebar = new Sidebar(page);
  const session = new SessionPage(page);
  for (const title of ['Pick a colour', 'please write notes.md', 'What files are in src?']) await expect(sidebar.row(title)).toBeVisible();
  await sidebar.row('Pick a colour').click();
  // The first session page of a fresh server on a shared machine can take longer than 5 s.
  await page.waitForURL(/\/sessions\/op-fork/, { timeout: 20_000 });
  await expect(session.title).toHaveText('Pick a colour', { timeout: 20_000 });
  await expect(session.fork(2, 2)).toBeVisible();
  await expect(page.getByText('Green')).toBeVisible();
  await captureViews(page, 'import-openprogram-session');
  await sidebar.row('please write notes.md').click();
  await expect(page.getByRole('article', { name: 'Assistant' })).toContainText('done');

  // Moved in with its git history as it was, at the project layout, its location recorded.
  const data = stateDirOf(user.id);
  const bound = join(data, 'sessions', 'projects', state.projectId, 'op-bound');
  const git = (cwd: string) => execFileSync('git', ['for-each-ref'], { cwd, encoding: 'utf8' });
  expect(git(bound)).toBe(git(state.boundRepo));
  expect(JSON.parse(readFileSync(join(data, 'sessions', 'locations.json'), 'utf8'))).toMatchObject({ 'op-bound': bound });

  await importFolder(page, state.stateDir);
  await expect(reportFigure(page, 'Sessions added')).toHaveText('0');
  await expect(reportFigure(page, 'Unchanged')).toHaveText('3');
});
