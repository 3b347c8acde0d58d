import { expect, type Locator, type Page } from '@playwright/test';

/** An audit log table (DESIGN §17): Admin's "Audit log" or Settings' "Your activity", by role and name. */
export class AuditLogSection {
  readonly region: Locator;
  readonly table: Locator;

  constructor(
    readonly page: Page,
    readonly name: 'Audit log' | 'Your activity',
  ) {
    this.region = page.getByRole('region', { name });
    this.table = this.region.getByRole('table', { name });
  }

  async goto(): Promise<void> {
    await this.page.goto(this.name === 'Audit log' ? '/admin' : '/settings');
    await expect(this.region.getByRole('heading', { name: this.name })).toBeVisible();
  }

  async filter(label: 'Action' | 'User' | 'Result', option: string): Promise<void> {
    await this.region.getByRole('combobox', { name: label }).selectOption({ label: option });
  }

  /** The body rows' cells as text: When, User, IP, Action, Target, Result. */
  async rows(): Promise<string[][]> {
    const rows = this.table.getByRole('row');
    const count = await rows.count();
    const cells: string[][] = [];
    // Row 0 is the header.
    for (let index = 1; index < count; index += 1) cells.push(await rows.nth(index).getByRole('cell').allInnerTexts());
    return cells;
  }

  row(...texts: string[]): Locator {
    return texts.reduce((rows, text) => rows.filter({ hasText: text }), this.table.getByRole('row'));
  }

  /** The CSV the section's link downloads, as the browser saves it. */
  async downloadCsv(): Promise<string> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.region.getByRole('link', { name: 'Download CSV' }).click()]);
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}
