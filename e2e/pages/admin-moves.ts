import { expect, type Locator, type Page } from '@playwright/test';

/** Admin → the users by instance of a cluster, each with a target to move them to (DESIGN §11). */
export class AdminMovesPage {
  readonly usersByInstance: Locator;

  constructor(readonly page: Page) {
    this.usersByInstance = page.getByRole('list', { name: 'Users by instance' });
  }

  /** Opens /admin and waits until its cluster part shows (the Instances region, or the list alone). */
  async goto(): Promise<void> {
    await this.page.goto('/admin');
    await expect(this.page.getByRole('region', { name: 'Instances' }).or(this.usersByInstance).first()).toBeVisible();
  }

  /** A user's row, by their email. */
  user(email: string): Locator {
    return this.usersByInstance.getByRole('listitem').filter({ hasText: email });
  }

  /** Chooses the target instance in the user's row and starts the move. */
  async move(email: string, to: string): Promise<void> {
    const row = this.user(email);
    await row.getByLabel(`Move ${email} to`).selectOption(to);
    await row.getByRole('button', { name: `Move ${email}` }).click();
  }

  /** The move's progress, then its result, in the user's row. */
  moveStatus(email: string): Locator {
    return this.user(email).getByRole('status');
  }
}
