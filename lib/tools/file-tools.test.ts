import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cutToolResult, runFileTool, type PendingWrite, type ToolContext } from './file-tools.js';

describe('the agent file tools', () => {
  let base: string;
  let ctx: ToolContext;
  let writes: PendingWrite[];
  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'em-tools-')));
    mkdirSync(join(base, 'app', 'src'), { recursive: true });
    mkdirSync(join(base, 'app', '.git'));
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'app', 'src', 'a.txt'), 'alpha\nBeta line\n');
    writeFileSync(join(base, 'app', '.git', 'config'), 'beta in git');
    writes = [];
    ctx = { roots: { project: join(base, 'app'), workdirs: [] }, beforeWrite: async (write) => void writes.push(write) };
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('reads, lists and searches inside the project, never showing .git', async () => {
    expect(await runFileTool('read_file', '{"path":"src/a.txt"}', ctx)).toEqual({ output: 'alpha\nBeta line\n', refused: false });
    expect((await runFileTool('list_directory', '{}', ctx)).output).toBe('src/');
    expect((await runFileTool('search_text', '{"query":"beta"}', ctx)).output).toBe('src/a.txt:2: Beta line');
  });

  it('writes after announcing the write, creating folders', async () => {
    const outcome = await runFileTool('write_file', JSON.stringify({ path: 'new/b.txt', content: 'hi' }), ctx);
    expect(outcome).toMatchObject({ output: 'wrote 2 bytes to new/b.txt', refused: false, written: { rel: 'new/b.txt', inProject: true } });
    expect(writes.map((w) => w.rel)).toEqual(['new/b.txt']);
    expect(readFileSync(join(base, 'app', 'new', 'b.txt'), 'utf8')).toBe('hi');
  });

  it('refuses paths outside, in .git, and through links, and writes nothing', async () => {
    symlinkSync(join(base, 'outside'), join(base, 'app', 'out'));
    for (const [name, args] of [
      ['write_file', { path: '../outside/x.txt', content: 'x' }],
      ['write_file', { path: `${base}/outside/x.txt`, content: 'x' }],
      ['write_file', { path: 'out/x.txt', content: 'x' }],
      ['write_file', { path: '.git/config', content: 'x' }],
      ['read_file', { path: '.git/config' }],
      ['list_directory', { path: 'out' }],
    ] as const) {
      const outcome = await runFileTool(name, JSON.stringify(args), ctx);
      expect(outcome.refused, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(outcome.output).toMatch(/^Refused: /);
    }
    expect(writes).toEqual([]);
    expect(readFileSync(join(base, 'app', '.git', 'config'), 'utf8')).toBe('beta in git');
  });

  it('refuses unknown tools and bad arguments', async () => {
    expect(await runFileTool('rm_rf', '{}', ctx)).toMatchObject({ refused: true });
    expect(await runFileTool('read_file', 'not json', ctx)).toMatchObject({ refused: true, output: 'Refused: the arguments are not valid JSON' });
    expect(await runFileTool('read_file', '{"path":3}', ctx)).toMatchObject({ refused: true });
  });

  it('cuts results over 64 KB without splitting a character', () => {
    expect(cutToolResult('short')).toEqual({ text: 'short', cut: false, bytes: 5 });
    const long = 'é'.repeat(40_000); // 80,000 bytes
    const cut = cutToolResult(long);
    expect(cut.cut).toBe(true);
    expect(cut.bytes).toBe(80_000);
    expect(Buffer.byteLength(cut.text)).toBe(64 * 1024);
    expect(cut.text).not.toContain('\uFFFD');
  });
});
