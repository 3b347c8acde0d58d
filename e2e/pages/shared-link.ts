import type { Locator, Page } from '@playwright/test';

/** A share link (`/s/<id>`) as a reader meets it: the shared page, its 404, or the sign-in page it sends to. */
export class SharedLinkPage {
  constructor(readonly page: Page) {}

  async goto(path: string) {
    return this.page.goto(path);
  }

  /** On the sign-in page a link sent a signed-out reader to: what it leads to. */
  get signInNote(): Locator {
    return this.page.getByRole('note', { name: 'Shared conversation' });
  }

  /** The shared page's title: the session's title at the commit the link is pinned to. */
  heading(title: string): Locator {
    return this.page.getByRole('heading', { level: 1, name: title });
  }

  /** Every message article the shared page shows, oldest first. */
  get messages(): Locator {
    return this.page.getByRole('main').getByRole('article', { name: /^(User|Assistant)$/ });
  }

  message(role: 'User' | 'Assistant'): Locator {
    return this.page.getByRole('article', { name: role, exact: true });
  }

  /** A file of a shown message, a link through the share link. */
  attachment(name: RegExp): Locator {
    return this.page.getByRole('list', { name: 'Attachments' }).getByRole('link', { name });
  }

  /** Said at the top while older pages are still to load. */
  get olderMessagesNotice(): Locator {
    return this.page.getByRole('status').filter({ hasText: 'Scroll up for older messages' });
  }

  get notFoundHeading(): Locator {
    return this.page.getByRole('heading', { name: 'Link not found', level: 1 });
  }

  get wayBack(): Locator {
    return this.page.getByRole('link', { name: 'Go to Entity Memory', exact: true });
  }
}
