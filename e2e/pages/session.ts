import type { Locator, Page } from '@playwright/test';

/** The session page (`/sessions/<id>`), by DESIGN §7's roles and names. */
export class SessionPage {
  constructor(readonly page: Page) {}

  /** Opens the session and waits until it has scrolled to where it opens (a click before that lands on a page that moves). */
  async goto(sessionId: string) {
    const response = await this.page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await this.opened();
    return response;
  }

  /** The message list has hydrated and done its opening scroll. */
  async opened(): Promise<void> {
    await this.page.locator('[data-message-list][aria-busy="false"]').waitFor();
  }

  get title(): Locator {
    return this.page.getByRole('heading', { level: 1 });
  }

  /** Every message article of the branch, oldest first. */
  get messages(): Locator {
    return this.page.locator('article[data-message-id]');
  }

  message(role: 'User' | 'Assistant' | 'System'): Locator {
    return this.page.getByRole('article', { name: role, exact: true });
  }

  /** The message with this node id. */
  messageById(id: string): Locator {
    return this.page.locator(`article[data-message-id="${id}"]`);
  }

  fork(n: number, of: number): Locator {
    return this.page.getByRole('group', { name: `Branch ${n} of ${of}`, exact: true });
  }

  async nextBranch(fork: Locator) {
    await fork.getByRole('button', { name: 'Next branch' }).click();
  }

  async previousBranch(fork: Locator) {
    await fork.getByRole('button', { name: 'Previous branch' }).click();
  }

  get timelineLink(): Locator {
    return this.page.getByRole('link', { name: 'Timeline', exact: true });
  }

  projectChip(name: string): Locator {
    return this.page.getByRole('link', { name, exact: true });
  }

  /** A tool call's folded line: "Tool call: <tool> <its file or command>". */
  toolCallSummary(article: Locator, tool: string): Locator {
    return this.toolCall(article, tool).locator('summary');
  }

  /** A tool call's fold under its assistant message: `<details>`, named by its summary. */
  toolCall(article: Locator, tool: string): Locator {
    return article.locator('details').filter({ has: this.page.locator('summary', { hasText: `Tool call: ${tool}` }) });
  }

  /** Ids of the message articles in the DOM, in order. */
  async messageIds(): Promise<string[]> {
    return this.page.locator('article[data-message-id]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-message-id')!));
  }

  /** Marks the document; `stillSameDocument()` is false after any full reload. */
  async markDocument() {
    await this.page.evaluate(() => ((window as unknown as { __sessionMark: number }).__sessionMark = 1));
  }

  async stillSameDocument(): Promise<boolean> {
    return this.page.evaluate(() => (window as unknown as { __sessionMark?: number }).__sessionMark === 1);
  }
}
