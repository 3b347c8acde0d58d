import { expect, type Locator, type Page } from '@playwright/test';

/** The sign-in page (`/signin`) and the single sign-on round trip from it, by role and name. */
export class SignInPage {
  constructor(readonly page: Page) {}

  async goto(): Promise<void> {
    await this.page.goto('/signin');
    await expect(this.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  }

  /** DESIGN §7 "team (§17)": the button "Sign in with <issuer name>". */
  singleSignOnButton(providerName: string): Locator {
    return this.page.getByRole('button', { name: `Sign in with ${providerName}`, exact: true });
  }

  /** The form's error line (Next's route announcer is an alert too, without this text). */
  error(text: string | RegExp): Locator {
    return this.page.getByRole('alert').filter({ hasText: text });
  }

  /** From this page through the provider's login page (a button per test account) and back. */
  async signInThroughProvider(providerName: string, accountEmail: string): Promise<void> {
    await this.singleSignOnButton(providerName).click();
    await this.page.getByRole('button', { name: `Continue as ${accountEmail}` }).click();
  }
}
