import { expect, type Locator, type Page } from '@playwright/test';

/** The Import page (`/import`) and its report, by role and name (DESIGN §7). */
export class ImportPage {
  readonly report: Locator;

  constructor(readonly page: Page) {
    this.report = page.getByRole('region', { name: 'Import report' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/import');
    await expect(this.page.getByRole('heading', { name: 'Import', level: 1 })).toBeVisible();
  }

  /** Picks a folder: the browser sends every file in it. */
  async chooseFolder(path: string): Promise<void> {
    await this.page.getByLabel('Folder to import').setInputFiles(path);
  }

  async chooseFiles(paths: string[]): Promise<void> {
    await this.page.getByLabel('Files to import').setInputFiles(paths);
  }

  /** Imports what was chosen; resolves when the report is complete. */
  async submit(): Promise<void> {
    await this.page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(this.page.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '100', { timeout: 30_000 });
    await expect(this.report).toBeVisible();
  }

  /** Opens the page, picks a folder and imports it. */
  async importFolder(path: string): Promise<void> {
    await this.goto();
    await this.chooseFolder(path);
    await this.submit();
  }

  /** Opens the page, picks files and imports them. */
  async importFiles(paths: string[]): Promise<void> {
    await this.goto();
    await this.chooseFiles(paths);
    await this.submit();
  }

  /** One figure of the report, by its label ("Sessions added"). */
  figure(label: string): Locator {
    return this.report.locator('div', { has: this.page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  }

  /** The "Left out (n)" list: one item per file or line not imported, with why. */
  leftOut(): Locator {
    return this.report.getByRole('listitem');
  }
}
