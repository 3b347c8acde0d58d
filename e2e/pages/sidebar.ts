import { expect, type Locator, type Page } from '@playwright/test';

/** The sidebar of every signed-in page, by role and name (DESIGN §7). */
export class Sidebar {
  readonly nav: Locator;

  constructor(readonly page: Page) {
    this.nav = page.getByRole('navigation', { name: 'Sessions' });
  }

  /** a session row's link, by its displayed title (exact) */
  row(title: string): Locator {
    return this.nav.getByRole('link', { name: title, exact: true });
  }

  /** a session's row box, by the session's id (before its title is known) */
  rowById(sessionId: string): Locator {
    return this.nav.locator(`[data-session-row="${sessionId}"]`);
  }

  /** every session link in the DOM (the virtualised list keeps only those near the view) */
  rowLinks(): Locator {
    return this.nav.locator('[data-session-row] a');
  }

  /** the rows in the DOM, each a `[data-session-row]` box: its link, its preview line and its time */
  rowBoxes(): Locator {
    return this.nav.locator('[data-session-row]');
  }

  heading(name: string): Locator {
    return this.nav.getByRole('heading', { name, exact: true });
  }

  /** the displayed titles of the rows in the DOM, top to bottom */
  async titles(): Promise<string[]> {
    return this.nav.locator('[data-session-row]').evaluateAll((rows) =>
      rows
        .map((row) => ({ top: row.getBoundingClientRect().top, title: row.querySelector('a')?.getAttribute('aria-label') ?? '' }))
        .sort((a, b) => a.top - b.top)
        .map((row) => row.title),
    );
  }

  async openMenu(title: string): Promise<Locator> {
    const row = this.nav.locator('[data-session-row]').filter({ has: this.page.getByRole('link', { name: title, exact: true }) });
    await row.hover();
    await this.nav.getByRole('button', { name: `Options for ${title}`, exact: true }).click();
    return this.page.getByRole('menu');
  }

  async openContextMenu(title: string): Promise<Locator> {
    await this.row(title).click({ button: 'right' });
    return this.page.getByRole('menu');
  }

  async choose(title: string, item: string): Promise<void> {
    const menu = await this.openMenu(title);
    await menu.getByRole('menuitem', { name: item, exact: true }).click();
  }

  async rename(title: string, next: string): Promise<void> {
    await this.choose(title, 'Rename');
    const field = this.nav.getByRole('textbox', { name: 'Session title' });
    await field.fill(next);
    await field.press('Enter');
  }

  async delete(title: string): Promise<void> {
    await this.choose(title, 'Delete');
    const dialog = this.page.getByRole('alertdialog');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(dialog).toHaveCount(0);
  }

  /** Scrolls the list to its end, page after page, until no more rows load. */
  async scrollToOldest(timeoutMs = 120_000): Promise<void> {
    const list = this.nav.locator('[data-session-list]');
    const deadline = Date.now() + timeoutMs;
    let stableRounds = 0;
    let lastHeight = -1;
    while (Date.now() < deadline && stableRounds < 6) {
      const height = await list.evaluate((element) => {
        element.scrollTop = element.scrollHeight;
        return element.scrollHeight;
      });
      await this.page.waitForTimeout(150);
      const loading = await this.nav.getByText('Loading more…').count();
      stableRounds = height === lastHeight && loading === 0 ? stableRounds + 1 : 0;
      lastHeight = height;
    }
  }
}
