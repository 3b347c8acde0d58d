import { expect, type Locator, type Page } from '@playwright/test';

/** The Chats page (`/chats`), by role and name (DESIGN §7). */
export class ChatsPage {
  readonly main: Locator;
  readonly search: Locator;

  constructor(readonly page: Page) {
    this.main = page.getByRole('main');
    this.search = this.main.getByRole('searchbox', { name: 'Search sessions' });
  }

  async goto(query = ''): Promise<void> {
    await this.page.goto(`/chats${query}`);
    await expect(this.search).toBeVisible();
  }

  tab(name: 'Active' | 'Archived' | 'All'): Locator {
    return this.main.getByRole('tab', { name, exact: true });
  }

  row(title: string): Locator {
    return this.main.getByRole('link', { name: title, exact: true });
  }

  checkbox(title: string): Locator {
    return this.main.getByRole('checkbox', { name: `Select ${title}`, exact: true });
  }

  bulk(name: 'Archive selected' | 'Unarchive selected' | 'Mark selected read' | 'Delete selected'): Locator {
    return this.main.getByRole('button', { name, exact: true });
  }

  async choose(title: string, item: string): Promise<void> {
    const row = this.main.locator('[data-session-row]').filter({ has: this.page.getByRole('link', { name: title, exact: true }) });
    await row.hover();
    await this.main.getByRole('button', { name: `Options for ${title}`, exact: true }).click();
    await this.page.getByRole('menu').getByRole('menuitem', { name: item, exact: true }).click();
  }

  async titles(): Promise<string[]> {
    return this.main.locator('[data-session-row]').evaluateAll((rows) =>
      rows
        .map((row) => ({ top: row.getBoundingClientRect().top, title: row.querySelector('a')?.getAttribute('aria-label') ?? '' }))
        .sort((a, b) => a.top - b.top)
        .map((row) => row.title),
    );
  }
}
