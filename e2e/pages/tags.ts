import { expect, type Locator, type Page } from '@playwright/test';

/** Tags and state (DESIGN §16) as a page shows them, by role and name. */
export class Tags {
  constructor(readonly page: Page) {}

  /** the tags a row (in `scope`: the sidebar or the Chats page's main) shows, in order */
  async ofRow(scope: Locator, title: string): Promise<string[]> {
    const row = scope.locator('[data-session-row]').filter({ has: this.page.getByRole('link', { name: title, exact: true }) });
    return row.getByRole('list', { name: 'Tags' }).getByRole('listitem').allInnerTexts();
  }

  rowBox(scope: Locator, title: string): Locator {
    return scope.locator('[data-session-row]').filter({ has: this.page.getByRole('link', { name: title, exact: true }) });
  }

  get dialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Edit tags' });
  }

  /** In the open "Edit tags" dialog: a new tag, added. */
  async addNew(name: string): Promise<void> {
    await this.dialog.getByRole('textbox', { name: 'New tag' }).fill(name);
    await this.dialog.getByRole('button', { name: 'Add tag' }).click();
    await expect(this.dialog.getByRole('checkbox', { name, exact: true })).toBeChecked();
  }

  async done(): Promise<void> {
    await this.dialog.getByRole('button', { name: 'Done' }).click();
    await expect(this.dialog).toHaveCount(0);
  }

  filterGroup(): Locator {
    return this.page.getByRole('main').getByRole('group', { name: 'Filter by tag' });
  }
}
