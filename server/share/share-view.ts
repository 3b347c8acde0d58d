import { mayOpenShares, NO_SUCH_LINK, ShareError, type ShareLink, type PinnedTurn } from '@/lib/share/index';
import { attachmentsOf, NotFoundError, type AttachmentRef, type BranchMessage, type SessionStore } from '@/lib/store/index';
import { getShareLinks, getSharingMode, getUserStore } from '@/server/runtime';

/** A tool call as a shared page shows it: its name, input and result, nothing of its metadata. */
export interface SharedToolCall {
  id: string;
  name: string;
  input: unknown;
  content: string;
  createdAt: number;
}

/** One message of a shared branch: role, text, time, tool calls (unless hidden), attachments. */
export interface SharedMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  /** the assistant's name (its model or agent), '' when none */
  name: string;
  createdAt: number;
  toolCalls: SharedToolCall[];
  attachments: AttachmentRef[];
}

/**
 * What `/s/<id>` and `share.view` answer. No session id, owner, email, path, system prompt,
 * metadata or other branch: only what the owner chose to show.
 */
export interface SharedView {
  title: string;
  scope: ShareLink['scope'];
  /** the turn shown up to (or the one turn); null for a live link of a session with no turn yet */
  turn: number | null;
  /** when that turn was committed, ms */
  at: number | null;
  toolCalls: boolean;
  expiresAt: number | null;
  /** the shared branch, or one page of it (`SharedWindow`): oldest first */
  messages: SharedMessage[];
  /** the shared message just before the first one shown (page on with `before: messages[0].id`); null when none is older */
  olderId: string | null;
}

/**
 * One page of a shared branch, as the session page pages its own: the `limit` messages before
 * `before` (a message the link shows), or the newest `limit`. Without a limit, every message.
 */
export interface SharedWindow {
  limit?: number;
  before?: string;
}

/** The link and its owner's store, or null when it cannot be opened (never made, revoked, expired, session gone). */
export async function openShare(id: string): Promise<{ link: ShareLink; store: SessionStore } | null> {
  const link = await getShareLinks().open(id);
  if (!link) return null;
  const store = await getUserStore(link.userId);
  return store.hasSession(link.sessionId) ? { link, store } : null;
}

/** The newest turn commit of a session, or null when it has none but `session init` (from the store's memory: no git process per visit). */
export async function newestTurn(store: SessionStore, sessionId: string): Promise<PinnedTurn | null> {
  return store.newestTurn(sessionId);
}

/** The commit of turn `turn`, walking the timeline newest first. */
export async function commitOfTurn(store: SessionStore, sessionId: string, turn: number): Promise<PinnedTurn | null> {
  let cursor: string | null = null;
  do {
    const page = await store.listCommits(sessionId, { limit: 200, cursor });
    const found = page.commits.find((commit) => commit.turn === turn);
    if (found) return { sha: found.sha, turn: found.turn };
    if (page.commits.some((commit) => commit.turn < turn)) return null;
    cursor = page.nextCursor;
  } while (cursor);
  return null;
}

/**
 * The shared branch as the link allows a viewer to see it: the mode first (off answers as a
 * link that does not exist; login needs a signed-in viewer), then the link, then git.
 */
export async function sharedView(id: string, viewer: { signedIn: boolean }, window: SharedWindow = {}): Promise<SharedView> {
  return (await sharedViewOfLink(id, viewer, window)).view;
}

/**
 * The view and the user who made the link, for the server's own use: the shared page renders as
 * that user (their share of the render pool, DESIGN §7 and issue 27 item 4), never as the link
 * or the visitor. The owner never leaves the server.
 */
export async function sharedViewOfLink(id: string, viewer: { signedIn: boolean }, window: SharedWindow = {}): Promise<{ view: SharedView; ownerId: string }> {
  const mode = getSharingMode();
  if (mode === 'off') throw new ShareError('NOT_FOUND', NO_SUCH_LINK);
  if (!mayOpenShares(mode, viewer.signedIn)) throw new ShareUnauthorized();
  const opened = await openShare(id);
  if (!opened) throw new ShareError('NOT_FOUND', NO_SUCH_LINK);
  try {
    return { view: await readView(opened.link, opened.store, window), ownerId: opened.link.userId };
  } catch (error) {
    if (error instanceof ShareError) throw error; // a page of it that does not exist, in its own words
    // A session or commit gone since the link was made: the link is gone too, in the same words.
    if (error instanceof NotFoundError || (error as { code?: unknown }).code === 'NOT_FOUND') throw new ShareError('NOT_FOUND', NO_SUCH_LINK);
    throw error;
  }
}

/** A link that cannot be opened (or a page of it that does not exist): the page answers 404 to it. */
export function isShareNotFound(error: unknown): boolean {
  return error instanceof ShareError;
}

/** Signed out under `login`: the caller signs in first. */
export class ShareUnauthorized extends Error {
  readonly code = 'UNAUTHORIZED';
  constructor() {
    super('sign in to open this shared session');
  }
}

async function readView(link: ShareLink, store: SessionStore, window: SharedWindow): Promise<SharedView> {
  const pin = link.scope === 'live' ? await newestTurn(store, link.sessionId) : { sha: link.sha!, turn: link.turn! };
  let messages: BranchMessage[] = [];
  let at: number | null = null;
  // A live link follows the session, its title too; a pinned one shows the title it was pinned
  // with (a link made before links kept it: its commit's), not one given since (issue 27 item 10).
  let title = link.scope === 'live' ? (store.getRow(link.sessionId)?.title ?? '') : '';
  if (pin) {
    const snapshot = await store.branchAt(link.sessionId, pin.sha);
    at = snapshot.createdAt;
    messages = snapshot.messages;
    if (link.scope !== 'live') title = link.title ?? snapshot.title;
    if (link.scope === 'turn') {
      // Only what this turn added: the branch at the turn before it is taken away.
      const before = snapshot.previous ? new Set((await store.branchAt(link.sessionId, snapshot.previous.sha)).messages.map((m) => m.id)) : new Set<string>();
      messages = messages.filter((message) => !before.has(message.id));
    }
  }
  const shown = messages.filter((m): m is BranchMessage & { role: 'user' | 'assistant' } => m.role === 'user' || m.role === 'assistant');
  const { start, end } = windowOf(shown, window);
  return {
    title: titleOf(title, shown),
    scope: link.scope,
    turn: pin?.turn ?? null,
    at,
    toolCalls: link.toolCalls,
    expiresAt: link.expiresAt,
    messages: shown.slice(start, end).map((m) => sharedMessage(m, link.toolCalls)),
    olderId: start > 0 ? shown[start - 1]!.id : null,
  };
}

/** Where the window lies in the shared messages; a `before` the link does not show is NOT_FOUND. */
function windowOf(shown: readonly { id: string }[], window: SharedWindow): { start: number; end: number } {
  let end = shown.length;
  if (window.before !== undefined) {
    end = shown.findIndex((message) => message.id === window.before);
    if (end < 0) throw new ShareError('NOT_FOUND', 'no such message in this shared conversation');
  }
  const start = window.limit === undefined ? 0 : Math.max(0, end - window.limit);
  return { start, end };
}

function sharedMessage(message: BranchMessage & { role: 'user' | 'assistant' }, toolCalls: boolean): SharedMessage {
  return {
    id: message.id,
    role: message.role,
    content: message.content,
    name: message.role === 'assistant' ? message.name : '',
    createdAt: message.createdAt,
    toolCalls: toolCalls ? message.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input, content: call.content, createdAt: call.createdAt })) : [],
    attachments: attachmentsOf(message.metadata, message.content),
  };
}

/**
 * The session's title; untitled, the first shared question (never the row's preview, which is
 * the newest question and may come from a turn the link does not show).
 */
function titleOf(given: string, messages: readonly BranchMessage[]): string {
  const title = given.trim();
  if (title !== '' && title !== 'New conversation' && title !== 'Untitled') return title;
  const first = messages.find((m) => m.role === 'user')?.content.replace(/\s+/g, ' ').trim() ?? '';
  if (first === '') return 'Shared conversation';
  return [...first].length > 80 ? `${[...first].slice(0, 77).join('')}…` : first;
}

/** Whether `file` is an attachment of a message the link shows: the only files it serves. */
export function viewHasAttachment(view: SharedView, file: string): boolean {
  return view.messages.some((message) => message.attachments.some((attachment) => attachment.file === file));
}
