import { expect, type Locator, type Page } from '@playwright/test';

/** The Settings page (`/settings`), by role and name. */
export class SettingsPage {
  readonly main: Locator;

  constructor(readonly page: Page) {
    this.main = page.getByRole('main');
  }

  async goto(): Promise<void> {
    await this.page.goto('/settings');
    await expect(this.page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  }

  /** The Titles section: whether agent sessions go to the title model, and which model that is. */
  get titles(): Locator {
    return this.page.getByRole('region', { name: 'Titles' });
  }

  get titleAgentSessions(): Locator {
    return this.titles.getByRole('checkbox', { name: 'Title agent sessions with the title model' });
  }

  /** One upstream's row under Connect an agent. */
  upstream(name: string): Locator {
    return this.page.getByRole('listitem', { name: `Upstream ${name}`, exact: true });
  }

  upstreamBaseUrl(name: string): Locator {
    return this.upstream(name).getByRole('textbox', { name: 'Base URL', exact: true });
  }

  async saveUpstream(name: string): Promise<void> {
    await this.upstream(name).getByRole('button', { name: 'Save', exact: true }).click();
  }

  /** Secrets: whether messages and imports are redacted. */
  get redactSecrets(): Locator {
    return this.page.getByRole('checkbox', { name: 'Redact secrets from messages and imports' });
  }

  /** Share links: every link the user made, each with Revoke. */
  get shareLinks(): Locator {
    return this.page.getByRole('region', { name: 'Share links' });
  }

  get connect(): Locator {
    return this.page.getByRole('region', { name: 'Connect an agent' });
  }
}
