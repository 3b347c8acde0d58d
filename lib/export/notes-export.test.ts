import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../store/testing/temp-store.js';
import { markdownExport, type MarkdownOptions } from './markdown.js';
import { sessionJson } from './session-json.js';
import { collect } from './testing/session-fixture.js';

const OPTIONS: MarkdownOptions = { toolCalls: true, reasoning: false, attachmentUrl: (sessionId, file) => `/a/${sessionId}/${file}` };

describe('notes in the exports (DESIGN §16)', () => {
  const fresh = tempStoresPerTest();

  it('the JSON export lists them; the Markdown export quotes each under its message and the session’s at the top', async () => {
    const { store } = await fresh();
    await store.createSession({ id: 'n', title: 'Noted' });
    await store.beginTurn('n');
    const asked = await store.appendMessage('n', { role: 'user', content: 'the question' });
    await store.appendMessage('n', { role: 'assistant', content: 'the answer' });
    await store.finalizeTurn('n');
    await store.setNote('n', { kind: 'message', messageId: asked.id }, 'Why **this** question');
    await store.setNote('n', { kind: 'session' }, 'Keep for the audit');
    const doc = JSON.parse((await collect(sessionJson(store, 'n', 1))).toString('utf8')) as { notes: Array<{ messageId: string | null; text: string }> };
    expect(doc.notes.map((note) => [note.messageId, note.text])).toEqual([[null, 'Keep for the audit'], [asked.id, 'Why **this** question']]);
    const { parts } = await markdownExport(store, 'n', OPTIONS);
    const text = (await collect(parts())).toString('utf8');
    expect(text).toContain('> **Note**\n>\n> Keep for the audit');
    expect(text.indexOf('> Why **this** question')).toBeGreaterThan(text.indexOf('the question'));
    expect(text.indexOf('> Why **this** question')).toBeLessThan(text.indexOf('the answer'));
  });
});
