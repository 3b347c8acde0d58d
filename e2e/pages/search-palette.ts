import { expect, type Locator, type Page } from '@playwright/test';

/** The search palette (Ctrl+K on any signed-in page): the dialog "Search", its combobox and its hits. */
export class SearchPalette {
  readonly dialog: Locator;
  readonly input: Locator;
  /** what the palette says instead of hits: before typing, and when nothing matches */
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByRole('dialog', { name: 'Search', exact: true });
    this.input = this.dialog.getByRole('combobox', { name: 'Search messages', exact: true });
    this.status = this.dialog.getByRole('status');
  }

  /** Ctrl+K from wherever the page is; resolves once the dialog shows. */
  async open(): Promise<void> {
    await this.page.keyboard.press('Control+k');
    await expect(this.dialog).toBeVisible();
  }

  async search(words: string): Promise<void> {
    await this.input.fill(words);
  }

  /** A hit, named by its session's title and the message's words. */
  hit(name: RegExp): Locator {
    return this.dialog.getByRole('option', { name });
  }
}
