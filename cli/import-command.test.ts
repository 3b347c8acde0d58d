import { getEventListeners } from 'node:events';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalBackend } from './local-backend.js';
import { runImport } from './import-command.js';
import { run } from './main.js';
import { makeOpenProgramState } from '../lib/import/testing/openprogram-state.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'shared', 'fixtures', 'import');
const SESSION_FILE = '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl';

async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['--data', dataDir, ...args], { out: (line) => out.push(line), err: (line) => err.push(line) }, {} as NodeJS.ProcessEnv);
  return { code, out, err };
}

describe('cli import', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  async function dataDir(): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'em-cli-import-'));
    dirs.push(dir);
    expect((await cli(dir, 'users', 'add', 'admin@cli.test', '--password', 'a long password', '--admin')).code).toBe(0);
    return dir;
  }

  it('--json prints one report object; the second run adds nothing', async () => {
    const dir = await dataDir();
    const first = await cli(dir, 'import', '--json', join(FIXTURES, 'codex'), join(FIXTURES, 'chatgpt', 'conversations.json'));
    expect(first.code).toBe(0);
    expect(first.out).toHaveLength(1);
    expect(JSON.parse(first.out[0]!)).toEqual({ added: 5, updated: 0, unchanged: 0, alreadyRecorded: 0, ignoredLines: 0, ignoredLineTypes: {}, redacted: 0, skipped: expect.any(Array) });
    const second = await cli(dir, 'import', '--json', join(FIXTURES, 'codex'), join(FIXTURES, 'chatgpt', 'conversations.json'));
    expect(JSON.parse(second.out[0]!)).toMatchObject({ added: 0, unchanged: 5 });
    const listed = await cli(dir, 'sessions', 'list', '--json');
    expect((JSON.parse(listed.out[0]!) as { id: string }[]).map((row) => row.id)).toContain('chatgpt-6a1f0c2e-5b7d-4e8f-9a0b-1c2d3e4f5a01');
  });

  it('an OpenProgram state directory: sessions moved in with --json counts; its project needs a root the user was given; a second run adds nothing', { timeout: 60_000 }, async () => {
    const dir = await dataDir();
    // Outside the data directory: a root may not be inside it.
    const elsewhere = mkdtempSync(join(tmpdir(), 'em-cli-openprogram-'));
    dirs.push(elsewhere);
    const state = await makeOpenProgramState(elsewhere);
    const first = await cli(dir, 'import', '--json', state.stateDir);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.out[0]!) as { added: number; skipped: { file: string; reason: string }[] };
    // Outside the user's roots, the project-bound session is refused with the reason; the others come in.
    expect(report.added).toBe(2);
    expect(report.skipped).toEqual([{ file: expect.stringContaining('op-bound'), line: 0, reason: expect.stringMatching(/^session op-bound not imported: .*outside the allowed roots/) }]);
    const before = process.env['OPENPROGRAM_ALLOWED_ROOTS'];
    process.env['OPENPROGRAM_ALLOWED_ROOTS'] = `admin@cli.test=${join(elsewhere, 'work')}`;
    try {
      const second = await cli(dir, 'import', '--json', state.stateDir);
      expect(JSON.parse(second.out[0]!)).toEqual({ added: 1, updated: 0, unchanged: 2, alreadyRecorded: 0, ignoredLines: 0, ignoredLineTypes: {}, redacted: 0, skipped: [] });
    } finally {
      if (before === undefined) delete process.env['OPENPROGRAM_ALLOWED_ROOTS'];
      else process.env['OPENPROGRAM_ALLOWED_ROOTS'] = before;
    }
    const listed = await cli(dir, 'sessions', 'list', '--json');
    expect((JSON.parse(listed.out[0]!) as { id: string; source: string }[]).filter((row) => row.id.startsWith('op-')).map((row) => [row.id, row.source]).sort()).toEqual([
      ['op-bound', 'openprogram'],
      ['op-fork', 'openprogram'],
      ['op-plain', 'openprogram'],
    ]);
    // Not a state directory, though it has a sessions/ folder: refused whole.
    mkdirSync(join(dir, 'fake', 'sessions'), { recursive: true });
    const refused = await cli(dir, 'import', join(dir, 'fake'));
    expect(refused.out.join('\n')).toMatch(/fake  refused: not an OpenProgram state directory/);
  });

  it("imports our own JSON export and all-sessions zip into another data directory: same ids, the same export, a second import adds nothing", async () => {
    const from = await dataDir();
    expect((await cli(from, 'import', '--json', join(FIXTURES, 'codex'))).code).toBe(0);
    const ids = (JSON.parse((await cli(from, 'sessions', 'list', '--json')).out[0]!) as { id: string }[]).map((row) => row.id);
    expect(ids.length).toBeGreaterThan(1);
    const json = join(from, 'one.json');
    const zip = join(from, 'all.zip');
    expect((await cli(from, 'sessions', 'export', ids[0]!, '--format', 'json', '-o', json)).code).toBe(0);
    expect((await cli(from, 'export', '--all', zip)).code).toBe(0);

    const to = await dataDir();
    const first = await cli(to, 'import', '--json', json);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out[0]!)).toEqual({ added: 1, updated: 0, unchanged: 0, alreadyRecorded: 0, ignoredLines: 0, ignoredLineTypes: {}, redacted: 0, skipped: [] });
    expect(JSON.parse((await cli(to, 'import', '--json', json)).out[0]!)).toMatchObject({ added: 0, unchanged: 1 });
    expect(JSON.parse((await cli(to, 'import', '--json', zip)).out[0]!)).toMatchObject({ added: ids.length - 1, unchanged: 1, skipped: [] });
    const again = join(to, 'again.json');
    expect((await cli(to, 'sessions', 'export', ids[0]!, '--format', 'json', '-o', again)).code).toBe(0);
    const strip = (file: string) => {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      delete doc['exportedAt'];
      return doc;
    };
    expect(strip(again)).toEqual(strip(json));
    expect((JSON.parse((await cli(to, 'sessions', 'list', '--json')).out[0]!) as { id: string }[]).map((row) => row.id).sort()).toEqual([...ids].sort());
  });

  it('a missing path is an error, and nothing is imported', async () => {
    const dir = await dataDir();
    const result = await cli(dir, 'import', join(dir, 'nowhere'));
    expect(result.code).toBe(1);
    expect(result.err.join('\n')).toMatch(/no such file or folder/);
  });

  it('--watch imports a new turn as the transcript grows, until stopped', async () => {
    const dir = await dataDir();
    const projects = join(dir, 'claude-projects', '-home-user-proj');
    mkdirSync(projects, { recursive: true });
    const transcript = join(projects, SESSION_FILE);
    copyFileSync(join(FIXTURES, 'claude-code', '-home-user-proj', SESSION_FILE), transcript);
    // An index made before: what --watch writes must reach it (issue 28).
    expect((await cli(dir, 'sessions', 'search', 'marimba')).code).toBe(0);
    const backend = LocalBackend.open(dir, null);
    const out: string[] = [];
    const controller = new AbortController();
    try {
      const watching = runImport(backend, [join(dir, 'claude-projects')], { json: true, watch: true, progressBar: false, watchIntervalMs: 100, signal: controller.signal }, { out: (line) => out.push(line), err: () => {} });
      await expect.poll(() => out.length).toBe(1);
      expect(JSON.parse(out[0]!)).toMatchObject({ added: 1 });
      const line = { type: 'user', uuid: 'cc000000-0000-4000-8000-000000000077', parentUuid: 'cc000000-0000-4000-8000-000000000023', sessionId: '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f', timestamp: '2026-11-20T11:00:00.000Z', message: { role: 'user', content: 'and one more about the marimba' } };
      appendFileSync(transcript, `${JSON.stringify(line)}\n`);
      await expect.poll(() => out.length, { timeout: 5000 }).toBe(2);
      expect(JSON.parse(out[1]!)).toMatchObject({ updated: 1, added: 0 });
      // Several more looks (each 100 ms): each waits on the signal and lets go of it; one listener
      // left per look warned past ten (MaxListenersExceededWarning).
      await new Promise((resolve) => setTimeout(resolve, 600));
      // (the count, not the time, is what is checked)
      expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
      controller.abort();
      await watching;
    } finally {
      controller.abort();
      await backend.close();
    }
    // The grown line's words are found without a reindex (issue 28).
    const found = await cli(dir, 'sessions', 'search', 'marimba', '--json');
    expect(found.code).toBe(0);
    expect(found.out.join('\n')).toContain('"messageId":"cc000000-0000-4000-8000-000000000077"');
  });

  it('a word only in an imported message body is found by `sessions search` without a reindex, the index made before the import (issue 28)', async () => {
    const dir = await dataDir();
    // The index exists and was closed whole, as after any earlier search or a server run.
    expect((await cli(dir, 'sessions', 'search', 'test_dates')).err.join('\n')).toMatch(/No message matches "test_dates".$/);
    expect((await cli(dir, 'import', '--json', join(FIXTURES, 'claude-code'))).code).toBe(0);
    const found = await cli(dir, 'sessions', 'search', 'test_dates', '--json');
    expect(found.code).toBe(0);
    const hits = found.out.join('\n');
    expect(hits).toContain('"sessionId":"cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f"');
    expect(hits).toContain('"messageId":"cc000000-0000-4000-8000-000000000001"');
  });
});
