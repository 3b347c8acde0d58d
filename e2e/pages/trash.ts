import { expect, type Locator, type Page } from '@playwright/test';

/** Retention (DESIGN §17): Settings → Retention, Admin → Retention and the Trash page, by role and name. */
export class RetentionPages {
  constructor(readonly page: Page) {}

  /** Settings → Retention: chooses the user's own limits (days) and saves them. */
  async chooseOwn(archiveAfterDays: number, moveToTrashAfterDays: number): Promise<void> {
    await this.page.goto('/settings');
    const section = this.page.getByRole('region', { name: 'Retention' });
    // Again until it is saved: what is typed before the page has hydrated is not React's state yet.
    await expect(async () => {
      await section.getByRole('radio', { name: 'Choose my own' }).check();
      await section.getByRole('spinbutton', { name: 'Archive sessions with no activity for (days)' }).fill(String(archiveAfterDays));
      await section.getByRole('spinbutton', { name: 'Move archived sessions to the Trash after (days)' }).fill(String(moveToTrashAfterDays));
      await section.getByRole('button', { name: 'Save retention' }).click();
      await expect(section.getByRole('status')).toContainText(`Saved. Sessions with no activity for ${archiveAfterDays} days are archived`, { timeout: 3_000 });
    }).toPass({ timeout: 20_000 });
  }

  /** Admin → Retention: "Apply retention now" as of a day (YYYY-MM-DD); resolves with what it says it did. */
  async applyAsOf(day: string): Promise<string> {
    if (!this.page.url().endsWith('/admin')) await this.page.goto('/admin');
    const section = this.page.getByRole('region', { name: 'Retention' });
    const said = section.getByRole('status');
    const button = section.getByRole('button', { name: 'Apply retention now' });
    // Again until it answers: a date typed before the page has hydrated is not React's state yet,
    // and sweeping twice as of the same day moves nothing more.
    await expect(async () => {
      await section.getByLabel('As of (optional)').fill(day);
      await button.click();
      await expect(said).toHaveText(new RegExp(`^Retention applied to .* as of ${day}:`), { timeout: 5_000 });
    }).toPass({ timeout: 30_000 });
    return (await said.textContent()) ?? '';
  }

  async gotoTrash(): Promise<void> {
    await this.page.goto('/trash');
    await expect(this.heading).toBeVisible();
  }

  get heading(): Locator {
    return this.page.getByRole('main').getByRole('heading', { name: 'Trash', level: 1 });
  }

  /** one trashed session's row, named by its title */
  row(title: string): Locator {
    return this.page.getByRole('list', { name: 'Trashed sessions' }).getByRole('listitem', { name: title, exact: true });
  }
}
