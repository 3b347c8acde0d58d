import type { Locator, Page } from '@playwright/test';

/** The Projects page and a project's page. */
export class ProjectsPage {
  constructor(readonly page: Page) {}

  async goto(): Promise<void> {
    await this.page.goto('/projects');
  }

  project(name: string): Locator {
    return this.page.getByRole('article', { name: name, exact: true });
  }

  autoCommit(name: string): Locator {
    return this.project(name).getByRole('switch', { name: 'Auto-commit' });
  }

  async relocate(name: string, newPath: string): Promise<void> {
    await this.project(name).getByRole('button', { name: `Relocate ${name}` }).click();
    const dialog = this.page.getByRole('dialog', { name: `Relocate ${name}` });
    await dialog.getByRole('textbox', { name: 'New path' }).fill(newPath);
    await dialog.getByRole('button', { name: 'Relocate', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  unregisterDialog(): Locator {
    return this.page.getByRole('alertdialog');
  }
}
