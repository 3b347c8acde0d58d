import type { SessionStore } from '../../store/index.js';

/**
 * A session with two turns, a tool call, reasoning, an attachment and a second branch (a retry):
 * every kind of thing an export has to carry.
 */
export async function seedExportSession(store: SessionStore, id = 's') {
  await store.createSession({ id, title: 'Export me' });
  await store.beginTurn(id);
  const u1 = await store.appendMessage(id, { role: 'user', content: 'List the files', metadata: { attachments: [{ id: 'a1-notes.txt', name: 'notes [v1].txt', size: 3 }] } });
  const a1 = await store.appendMessage(id, { role: 'assistant', content: 'Looking ```now```', metadata: { reasoning: 'the user wants ls' } });
  const tool = await store.appendMessage(id, { role: 'tool', content: 'a.txt\nb.txt', calledBy: a1.id, name: 'list_directory', input: { path: '.' } });
  await store.finalizeTurn(id);
  await store.beginTurn(id);
  const u2 = await store.appendMessage(id, { role: 'user', content: 'Thanks' });
  const old = await store.appendMessage(id, { role: 'assistant', content: 'Old answer' });
  await store.finalizeTurn(id);
  // A retry of the last answer: the old one stays on its own branch.
  await store.retry(id, old.id);
  await store.beginTurn(id);
  const fresh = await store.appendMessage(id, { role: 'assistant', content: 'New answer', parentId: u2.id });
  await store.finalizeTurn(id);
  return { u1, a1, tool, u2, old, fresh };
}

export async function collect(chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(parts);
}
