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

  get notFoundHeading(): Locator {
    return this.page.getByRole('heading', { name: 'Link not found', level: 1 });
  }

  get wayBack(): Locator {
    return this.page.getByRole('link', { name: 'Go to Entity Memory', exact: true });
  }
}
