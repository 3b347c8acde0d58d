import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redactMessage } from '../redact/index.js';
import { SessionStore } from '../store/index.js';
import { detectFormat, type FileSample } from './formats.js';
import { importInputs, inputsFromPaths } from './import-file.js';
import { fixture } from './testing/fixtures.js';

function sample(name: string, text: string): FileSample {
  const bytes = new TextEncoder().encode(text);
  return { name, bytes, text };
}

describe('telling a file format by its content', () => {
  it('knows each format whatever the file is called', () => {
    const chatgpt = readFileSync(fixture('chatgpt', 'conversations.json'), 'utf8');
    const rollout = readFileSync(fixture('codex', 'broken-rollout.jsonl'), 'utf8');
    const transcript = readFileSync(fixture('claude-code', '-home-user-proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl'), 'utf8');
    expect(detectFormat(sample('my-chatgpt-export.json', chatgpt))?.format).toBe('chatgpt');
    expect(detectFormat(sample('backup.txt', chatgpt))?.format).toBe('chatgpt');
    expect(detectFormat(sample('rollout.log', rollout))?.format).toBe('codex');
    expect(detectFormat(sample('session.txt', transcript))?.format).toBe('claude-code');
    expect(detectFormat(sample('one.json', '{"schema":"entity-memory.session/1","id":"x"}'))?.format).toBe('session-export');
    expect(detectFormat({ name: 'export', bytes: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0]), text: 'PK\u0003\u0004' })?.format).toBe('zip');
    expect(detectFormat(sample('proj/s/subagents/agent-1.meta.json', '{"agentType":"x"}'))?.format).toBe('no-conversation');
  });

  it('accepts no format for notes, pictures or an empty file', () => {
    expect(detectFormat(sample('notes.md', '# notes\nhello'))).toBeNull();
    expect(detectFormat(sample('empty.txt', ''))).toBeNull();
    expect(detectFormat({ name: 'a.png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0]), text: '\uFFFDPNG\u0000\u0000' })).toBeNull();
  });
});

describe('a folder import', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('imports a ChatGPT export not named conversations.json and lists every file it left out, with why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-formats-'));
    const store = await SessionStore.open({ stateDir: join(dir, 'state'), redactor: redactMessage });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => store.close());
    const folder = join(dir, 'exports');
    mkdirSync(folder);
    writeFileSync(join(folder, 'chatgpt-2026-12.json'), readFileSync(fixture('chatgpt', 'conversations.json')));
    writeFileSync(join(folder, 'notes.md'), '# what I exported\n');
    writeFileSync(join(folder, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    const report = await importInputs(store, await inputsFromPaths([folder]));
    expect(report.added).toBe(3);
    expect(report.skipped.map((entry) => [entry.file, entry.reason.replace(/, not a format this imports .*$/, '')])).toEqual([
      ['exports/notes.md', 'not imported: plain text, not JSON'],
      ['exports/photo.png', 'not imported: the file is not text (binary)'],
    ]);
  });
});
