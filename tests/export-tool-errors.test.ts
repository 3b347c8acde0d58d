/**
 * Issue 28, one shape for tool calls: a failed call reads as failed in the Markdown export whichever
 * way it came in (toolCallFailed): a Claude Code import (its `is_error` tool_result, the fixture's R1),
 * the recording proxy's `is_error`, an older import's `isError`, the web chat's refused path.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { markdownExport } from '../lib/export/markdown.js';
import { collect } from '../lib/export/testing/session-fixture.js';
import { importInputs, inputsFromPaths } from '../lib/import/import-file.js';
import { FIXTURES } from '../lib/import/testing/fixtures.js';
import { SessionStore } from '../lib/store/index.js';

const temps: string[] = [];
const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function exported(store: SessionStore, sessionId: string): Promise<string> {
  const { parts } = await markdownExport(store, sessionId, { toolCalls: true, reasoning: false, attachmentUrl: () => '/x' });
  return (await collect(parts())).toString('utf8');
}

describe('a failed tool call in the Markdown export', () => {
  it('is marked for an imported Claude Code session and for each writer\'s own shape', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'export-tool-errors-')));
    temps.push(dir);
    const store = await SessionStore.open({ stateDir: dir });
    stores.push(store);
    await importInputs(store, await inputsFromPaths([join(FIXTURES, 'claude-code', '-home-user-proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl')]));
    const imported = await exported(store, 'cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f');
    // R1 failed (is_error: true), R7 did not.
    expect(imported.match(/Result \(an error\):/g)).toHaveLength(1);
    expect(imported).toMatch(/Tool call `Bash`\*\*[\s\S]*?Result \(an error\):/);

    await store.createSession({ id: 'shapes' });
    const reply = await store.appendMessage('shapes', { role: 'user', content: 'go' }).then(() => store.appendMessage('shapes', { role: 'assistant', content: 'calling' }));
    for (const [name, metadata] of [['proxied', { is_error: true }], ['older-import', { isError: true }], ['chat', { refused: true }], ['fine', {}]] as const) {
      await store.appendMessage('shapes', { role: 'tool', calledBy: reply.id, name, content: 'out', metadata: { tool_call_id: name, ...metadata } });
    }
    const text = await exported(store, 'shapes');
    expect(text.match(/Result \(an error\):/g)).toHaveLength(3);
    expect(text).toMatch(/Tool call `fine`\*\*[\s\S]*?\nResult:\n/);
  });
});
