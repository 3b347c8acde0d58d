import { describe, expect, it } from 'vitest';
import { tempStoresPerTest } from '../store/testing/temp-store.js';
import { ExportTooLargeError, markdownExport, markdownLimitFromEnv, MAX_MARKDOWN_BYTES, type MarkdownOptions } from './markdown.js';
import { collect, seedExportSession } from './testing/session-fixture.js';

const url = (sessionId: string, file: string) => `/api/attachments/${sessionId}/${encodeURIComponent(file)}`;
const DEFAULTS: MarkdownOptions = { toolCalls: true, reasoning: false, attachmentUrl: url };

describe('Markdown export', () => {
  const open = tempStoresPerTest();

  it('is the current branch only, with tool calls and attachment links, and no reasoning by default', async () => {
    const { store } = await open();
    await seedExportSession(store);
    const { bytes, parts } = await markdownExport(store, 's', DEFAULTS);
    const text = (await collect(parts())).toString('utf8');
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect(text.startsWith('# Export me\n')).toBe(true);
    expect(text).toContain('List the files');
    expect(text).toContain('New answer');
    expect(text).not.toContain('Old answer'); // the other branch
    expect(text).toContain('**Tool call `list_directory`**');
    expect(text).toContain('a.txt\nb.txt');
    expect(text).not.toContain('the user wants ls');
    // The label's brackets are escaped; the link is the session's download URL.
    expect(text).toContain('[notes \\[v1\\].txt](</api/attachments/s/a1-notes.txt>)');
    // Backticks in content stay inside the message: no fence of the export is closed by them.
    expect(text).toContain('Looking ```now```');
    expect(text.indexOf('## User')).toBeLessThan(text.indexOf('## Assistant'));
  });

  it('switches tool calls off and reasoning on', async () => {
    const { store } = await open();
    await seedExportSession(store);
    const { parts } = await markdownExport(store, 's', { ...DEFAULTS, toolCalls: false, reasoning: true });
    const text = (await collect(parts())).toString('utf8');
    expect(text).not.toContain('list_directory');
    expect(text).toContain('> the user wants ls');
  });

  it('refuses past the limit instead of cutting', async () => {
    const { store } = await open();
    await seedExportSession(store);
    await expect(markdownExport(store, 's', { ...DEFAULTS, limitBytes: 200 })).rejects.toBeInstanceOf(ExportTooLargeError);
    await expect(markdownExport(store, 's', { ...DEFAULTS, limitBytes: 200 })).rejects.toThrow(/more than the .* limit: export as JSON/);
  });

  it('says sizes in MB, KB or bytes, the size rounded up and the limit down', () => {
    expect(new ExportTooLargeError(33 * 1024 * 1024 + 1, 32 * 1024 * 1024).message).toBe('the Markdown export would be 34 MB, more than the 32 MB limit: export as JSON or as a git bundle');
    expect(new ExportTooLargeError(5000, 4096).message).toBe('the Markdown export would be 5 KB, more than the 4 KB limit: export as JSON or as a git bundle');
    expect(new ExportTooLargeError(470, 200).message).toBe('the Markdown export would be 470 bytes, more than the 200 bytes limit: export as JSON or as a git bundle');
  });

  it('takes OPENPROGRAM_EXPORT_MARKDOWN_MAX_BYTES when it is a whole number of at least 1024, else 32 MiB', () => {
    expect(markdownLimitFromEnv({})).toBe(MAX_MARKDOWN_BYTES);
    expect(markdownLimitFromEnv({ OPENPROGRAM_EXPORT_MARKDOWN_MAX_BYTES: '65536' })).toBe(65536);
    for (const bad of ['1023', '-5', '1.5', 'lots', '']) expect(markdownLimitFromEnv({ OPENPROGRAM_EXPORT_MARKDOWN_MAX_BYTES: bad })).toBe(MAX_MARKDOWN_BYTES);
  });
});
