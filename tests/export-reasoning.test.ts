/**
 * Issue 28, one shape: "Include reasoning" in the Markdown export shows the reasoning of every way
 * in, each in the shape its writer really stores: imported Claude Code (`thinking`, a string),
 * imported Codex and ChatGPT (`reasoning`), and the recording proxy (`thinking` blocks, as the
 * recorder keeps the reply's assembled thinking). It used to read `metadata.reasoning` only.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markdownExport } from '../lib/export/markdown.js';
import { collect } from '../lib/export/testing/session-fixture.js';
import { importInputs, inputsFromPaths } from '../lib/import/import-file.js';
import { FIXTURES } from '../lib/import/testing/fixtures.js';
import { assembleReply } from '../lib/proxy/assemble.js';
import { SessionStore } from '../lib/store/index.js';

const temps: string[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function exported(store: SessionStore, sessionId: string, reasoning: boolean): Promise<string> {
  const { parts } = await markdownExport(store, sessionId, { toolCalls: true, reasoning, attachmentUrl: () => '/x' });
  return (await collect(parts())).toString('utf8');
}

describe('the Markdown export with "Include reasoning" (reasoningOf)', () => {
  it('shows the reasoning of imported Claude Code, Codex and ChatGPT sessions and of a proxied one', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'export-reasoning-')));
    temps.push(dir);
    const store = await SessionStore.open({ stateDir: dir });
    stores.push(store);
    await importInputs(store, await inputsFromPaths([join(FIXTURES, 'claude-code'), join(FIXTURES, 'codex'), join(FIXTURES, 'chatgpt')]));

    const rows = store.listSessions({}).rows;
    const bySource = (source: string) => rows.filter((row) => row.source === source).map((row) => row.id);
    const shown: Record<string, string[]> = {};
    for (const source of ['claude-code', 'codex', 'chatgpt']) {
      for (const id of bySource(source)) {
        const nodes = await store.getNodes(id);
        const withReasoning = nodes.filter((node) => node.metadata['thinking'] !== undefined || node.metadata['reasoning'] !== undefined);
        if (withReasoning.length === 0) continue;
        const text = await exported(store, id, true);
        expect(await exported(store, id, false)).not.toContain('**Reasoning**');
        shown[source] = [...(shown[source] ?? []), text];
      }
    }
    expect(Object.keys(shown).sort()).toEqual(['chatgpt', 'claude-code', 'codex']);
    for (const [source, texts] of Object.entries(shown)) expect(texts.some((text) => text.includes('> **Reasoning**')), source).toBe(true);
    expect(shown['codex']!.join('\n')).toContain('Inspecting the CLI entry point');

    // The proxy keeps the reply's assembled thinking, blocks with their signatures.
    const sse = [
      ['message_start', { type: 'message_start', message: { id: 'msg_p', type: 'message', role: 'assistant', model: 'claude-test', content: [] } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'the proxy thought first' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Answer' } }],
      ['message_stop', { type: 'message_stop' }],
    ].map(([name, data]) => `event: ${name as string}\ndata: ${JSON.stringify(data)}\n\n`).join('');
    const reply = assembleReply('anthropic', 'text/event-stream', Buffer.from(sse));
    expect(reply.thinking).toEqual([{ text: 'the proxy thought first', signature: 'sig' }]);
    await store.createSession({ id: 'proxied', source: 'proxy:claude-code' });
    const question = await store.appendMessage('proxied', { role: 'user', content: 'Why?' });
    await store.appendMessage('proxied', { role: 'assistant', parentId: question.id, content: reply.text, metadata: { thinking: reply.thinking } });
    const proxied = await exported(store, 'proxied', true);
    expect(proxied).toContain('> **Reasoning**\n>\n> the proxy thought first');
    expect(proxied).not.toContain('sig');
  });
});
