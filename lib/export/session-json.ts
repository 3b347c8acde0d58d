import { nodesOf, sessionBookmarks, type ExportSource } from './source.js';

export const SESSION_EXPORT_SCHEMA = 'entity-memory.session/1';

/**
 * The lossless export: `{schema, exportedAt, session, branches, notes, bookmarks, nodes}`, every node (tool calls,
 * reasoning and metadata as stored, ids kept) by seq. Yielded a node at a time, so the text is
 * never built whole; nodes come last so the document can be read as it streams.
 */
export async function* sessionJson(source: ExportSource, sessionId: string, now = Date.now()): AsyncGenerator<string> {
  const session = await source.getSession(sessionId);
  const branches = await source.listBranches(sessionId);
  // the session's own note (messageId null) and each message's, as git notes hold them
  const notes = source.listNotes ? await source.listNotes(sessionId) : [];
  // the exporting user's bookmarks of its messages (their own, like the notes)
  const bookmarks = sessionBookmarks(source, sessionId);
  yield `{"schema":${JSON.stringify(SESSION_EXPORT_SCHEMA)},"exportedAt":${now},"session":${JSON.stringify(session)},"branches":${JSON.stringify(branches)},"notes":${JSON.stringify(notes)},"bookmarks":${JSON.stringify(bookmarks)},"nodes":[`;
  let first = true;
  for await (const node of nodesOf(source, sessionId)) {
    yield (first ? '\n' : ',\n') + JSON.stringify(node);
    first = false;
  }
  yield '\n]}\n';
}
