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

  /** The message hits of a search, under the heading "Messages". */
  get messageHits(): Locator {
    return this.page.getByRole('region', { name: 'Messages' });
  }

  /** A message hit: a link named by its session's title and the message's words. */
  messageHit(name: RegExp): Locator {
    return this.messageHits.getByRole('link', { name });
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

  /** A row's options menu, opened: its items by name (Rename, Archive, Export…). */
  async openMenu(title: string): Promise<Locator> {
    const row = this.main.locator('[data-session-row]').filter({ has: this.page.getByRole('link', { name: title, exact: true }) });
    await row.hover();
    await this.main.getByRole('button', { name: `Options for ${title}`, exact: true }).click();
    return this.page.getByRole('menu');
  }

  async choose(title: string, item: string): Promise<void> {
    const menu = await this.openMenu(title);
    await menu.getByRole('menuitem', { name: item, exact: true }).click();
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
