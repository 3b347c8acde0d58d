import type { Locator, Page } from '@playwright/test';

/** The timeline page and the at-turn view, by role and accessible name (DESIGN §7). */
export class TimelinePage {
  constructor(readonly page: Page) {}

  async goto(sessionId: string): Promise<void> {
    await this.page.goto(`/sessions/${sessionId}/timeline`);
  }

  /** Each turn is an article named by its heading "Turn N" ("Turn N · tool results" for an agent's tool round-trip). */
  turn(n: number): Locator {
    return this.page.getByRole('article', { name: new RegExp(`^Turn ${n}(?: · .+)?$`) });
  }

  turns(): Locator {
    return this.page.getByRole('list', { name: 'Turns' }).getByRole('article');
  }

  openAsOf(n: number): Locator {
    return this.page.getByRole('link', { name: `Open as of turn ${n}`, exact: true });
  }

  loadOlder(): Locator {
    return this.page.getByRole('button', { name: 'Load older turns' });
  }

  graph(): Locator {
    return this.page.getByRole('img', { name: 'Branch graph' });
  }

  /** A branch tip of the graph: a link that switches to that branch. */
  tip(name: string): Locator {
    return this.graph().getByRole('link', { name: `Switch to branch ${name}`, exact: true });
  }

  /** The read-only at-turn view. */
  banner(): Locator {
    return this.page.getByRole('note', { name: 'Read-only view' });
  }

  messages(): Locator {
    return this.page.getByRole('article', { name: /^(User|Assistant)$/ });
  }
}
