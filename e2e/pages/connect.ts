import { expect, type Locator, type Page } from '@playwright/test';

type Agent = 'Claude Code' | 'Codex' | 'OpenAI SDK' | 'Anthropic SDK';
type Provider = 'Anthropic' | 'OpenAI';

/**
 * Settings → "Connect an agent" (DESIGN §12): a tab per agent with the lines that point it at the
 * proxy, the last exchange each agent made, and the upstreams with their provider keys.
 */
export class ConnectSection {
  readonly section: Locator;

  constructor(readonly page: Page) {
    this.section = page.getByRole('region', { name: 'Connect an agent' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/settings');
    await expect(this.section).toBeVisible();
  }

  get heading(): Locator {
    return this.section.getByRole('heading', { name: 'Connect an agent' });
  }

  tab(agent: Agent): Locator {
    return this.section.getByRole('tab', { name: agent });
  }

  /** The lines to paste for an agent (the open tab's). */
  lines(agent: Agent): Locator {
    return this.section.getByLabel(`Lines for ${agent}`);
  }

  get makeTokenButton(): Locator {
    return this.section.getByRole('button', { name: 'Make a token' });
  }

  /** The open tab's Copy button. */
  get copyButton(): Locator {
    return this.section.getByRole('tabpanel').getByRole('button', { name: 'Copy' });
  }

  /** The notice beside the lines when no provider key is stored, with a field to store one. */
  missingKeyNotice(provider: Provider): Locator {
    return this.section.getByRole('region', { name: `No ${provider} key stored` });
  }

  async storeKeyOnNotice(provider: Provider, key: string): Promise<void> {
    const notice = this.missingKeyNotice(provider);
    await notice.getByLabel(`Your ${provider} key`).fill(key);
    await notice.getByRole('button', { name: 'Store key' }).click();
  }

  lastExchangeFailed(agent: Agent): Locator {
    return this.section.getByRole('status', { name: `Last exchange from ${agent} failed` });
  }

  noExchangeYet(agent: Agent): Locator {
    return this.section.getByText(`No exchange from ${agent} recorded yet.`);
  }

  /** One upstream's row. */
  upstream(name: string): Locator {
    return this.section.getByRole('listitem', { name: `Upstream ${name}` });
  }

  /** Types a provider key into an upstream's row and saves it. */
  async saveUpstreamKey(name: string, key: string): Promise<void> {
    const row = this.upstream(name);
    await row.getByLabel(`Provider key for ${name}`).fill(key);
    await row.getByRole('button', { name: 'Save' }).click();
  }

  async deleteUpstream(name: string): Promise<void> {
    await this.upstream(name).getByRole('button', { name: 'Delete upstream' }).click();
  }

  get addUpstreamForm(): Locator {
    return this.section.getByRole('form', { name: 'Add an upstream' });
  }

  /** Fills the "Add an upstream" form and submits it (what it answers is the caller's to check). */
  async addUpstream(upstream: { name: string; baseUrl: string; key?: string }): Promise<void> {
    const form = this.addUpstreamForm;
    await form.getByLabel('Upstream name').fill(upstream.name);
    await form.getByLabel('Base URL of the new upstream').fill(upstream.baseUrl);
    if (upstream.key !== undefined) await form.getByLabel('Provider key (optional)').fill(upstream.key);
    await form.getByRole('button', { name: 'Add upstream' }).click();
  }
}
