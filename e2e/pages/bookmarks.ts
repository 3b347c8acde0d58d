import { expect, type Locator, type Page } from '@playwright/test';

/** Bookmarks (DESIGN §16): a message's "Bookmark" button and the Bookmarks page, by role and name. */
export class BookmarksPage {
  readonly main: Locator;

  constructor(readonly page: Page) {
    this.main = page.getByRole('main');
  }

  async goto(): Promise<void> {
    await this.page.goto('/bookmarks');
    await expect(this.heading).toBeVisible();
  }

  get heading(): Locator {
    return this.main.getByRole('heading', { name: 'Bookmarks', level: 1 });
  }

  /** the bookmarked messages, newest first */
  get items(): Locator {
    return this.main.getByRole('list', { name: 'Bookmarked messages' }).getByRole('listitem');
  }

  /** "Bookmark" on a message (an article of the session page) */
  button(message: Locator): Locator {
    return message.getByRole('button', { name: 'Bookmark', exact: true });
  }

  /** Presses "Bookmark" on the message and waits until it shows pressed. */
  async bookmark(message: Locator): Promise<void> {
    await expect(this.button(message)).toHaveAttribute('aria-pressed', 'false');
    await this.button(message).click();
    await expect(this.button(message)).toHaveAttribute('aria-pressed', 'true');
  }
}

/** Saved views (DESIGN §16): "Save view" on the Chats page and the sidebar's "Views". */
export class SavedViews {
  constructor(readonly page: Page) {}

  get section(): Locator {
    return this.page.getByRole('navigation', { name: 'Sessions' }).getByRole('region', { name: 'Views' });
  }

  /** a view's link in the sidebar, named by its name and count ("Triage, 2 sessions") */
  link(name: string, sessions: number): Locator {
    return this.section.getByRole('link', { name: `${name}, ${sessions} ${sessions === 1 ? 'session' : 'sessions'}`, exact: true });
  }

  get dialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Save view' });
  }

  /** "Save view" with this name; the dialog stays open when the name is refused. */
  async save(name: string): Promise<void> {
    await this.page.getByRole('main').getByRole('button', { name: 'Save view' }).click();
    await this.dialog.getByRole('textbox', { name: 'Name' }).fill(name);
    await this.dialog.getByRole('button', { name: 'Save', exact: true }).click();
  }

  async delete(name: string): Promise<void> {
    await this.section.getByRole('button', { name: `Delete view ${name}`, exact: true }).click();
  }
}
