import type { Locator, Page } from '@playwright/test';

/** The session page (`/sessions/<id>`), by DESIGN §7's roles and names. */
export class SessionPage {
  constructor(readonly page: Page) {}

  /** Opens the session and waits until it has scrolled to where it opens (a click before that lands on a page that moves). */
  async goto(sessionId: string) {
    const response = await this.page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    // A 404 page has no message list to wait for.
    if (response?.ok()) await this.opened();
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

  /** The message the page was opened at (`?m=<id>`), marked current. */
  get currentMessage(): Locator {
    return this.page.locator('article[aria-current="true"]');
  }

  /** Said when the page shows a branch that is not the session's head. */
  get otherBranchNotice(): Locator {
    return this.page.getByRole('status').filter({ hasText: 'You are viewing another branch' });
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

  /** The header's "Session options" menu, opened: its items by name (Rename, Pin, Archive, Share, Delete…). */
  async openOptions(): Promise<Locator> {
    await this.page.getByRole('main').getByRole('button', { name: 'Session options', exact: true }).click();
    return this.page.getByRole('menu');
  }

  /** Session options → Share: the Share dialog. */
  async openShareDialog(): Promise<ShareDialog> {
    const menu = await this.openOptions();
    await menu.getByRole('menuitem', { name: 'Share', exact: true }).click();
    return new ShareDialog(this.page.getByRole('dialog', { name: 'Share session' }));
  }

  /** The header's Export menu, opened (DESIGN §10's formats and switches). */
  async openExportMenu(): Promise<ExportMenu> {
    await this.page.getByRole('main').getByRole('button', { name: 'Export', exact: true }).click();
    return new ExportMenu(this.page.getByRole('menu'));
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

/** The Share dialog of a session: make, update and revoke its link. */
export class ShareDialog {
  constructor(readonly root: Locator) {}

  get createButton(): Locator {
    return this.root.getByRole('button', { name: 'Create link', exact: true });
  }

  get linkField(): Locator {
    return this.root.getByRole('textbox', { name: 'Share link' });
  }

  get expires(): Locator {
    return this.root.getByLabel('Expires after');
  }

  /** The turn a link is pinned at, as the dialog says it. */
  upToTurn(turn: number): Locator {
    return this.root.getByText(`Up to turn ${turn}`, { exact: true });
  }

  /** The session's existing links, each with Update and Revoke. */
  get links(): Locator {
    return this.root.getByRole('list', { name: 'Links to this session' });
  }

  button(name: string): Locator {
    return this.root.getByRole('button', { name, exact: true });
  }
}

/** A session's Export menu: one item per format, switches for what the Markdown includes. */
export class ExportMenu {
  constructor(readonly root: Locator) {}

  get items(): Locator {
    return this.root.getByRole('menuitem');
  }

  item(name: 'Export as Markdown' | 'Export as JSON' | 'Download git bundle' | 'Export attribution (Agent Trace)'): Locator {
    return this.root.getByRole('menuitem', { name, exact: true });
  }

  option(name: 'Include tool calls' | 'Include reasoning'): Locator {
    return this.root.getByRole('menuitemcheckbox', { name, exact: true });
  }
}
