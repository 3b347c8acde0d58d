import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, readdirSync, statSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { redactMessage } from '../redact/index.js';
import { SessionStore } from '../store/index.js';
import { importFile, importInputs, inputsFromPaths, type ImportTarget } from './import-file.js';
import { FIXTURES, fixture } from './testing/fixtures.js';

const MAIN_ID = 'cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f';

describe('importing files into a store', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  async function setup() {
    const dir = mkdtempSync(join(tmpdir(), 'import-run-'));
    const store = await SessionStore.open({ stateDir: join(dir, 'state'), redactor: redactMessage });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => store.close());
    return { dir, store };
  }

  it('imports the sample folders and export, reports what it left out, and adds nothing the second time', async () => {
    const { store } = await setup();
    const paths = [join(FIXTURES, 'claude-code'), join(FIXTURES, 'codex'), fixture('chatgpt', 'conversations.json'), fixture('chatgpt', 'broken-truncated.json')];
    const progress: number[] = [];
    const report = await importInputs(store, await inputsFromPaths(paths), { onProgress: (p) => progress.push(p.filesDone) });
    // 3 Claude Code sessions (main, sub-agent, broken), 2 rollouts, 3 conversations
    expect(report).toMatchObject({ added: 8, updated: 0, unchanged: 0, alreadyRecorded: 0, ignoredLines: 0, redacted: 0 });
    expect(report.skipped.map((entry) => `${entry.file.replace(/^.*\//, '')}:${entry.line}`)).toEqual([
      'broken-truncated.json:0',
      'broken-session.jsonl:3', 'broken-session.jsonl:4', 'broken-session.jsonl:5',
      'broken-rollout.jsonl:3', 'broken-rollout.jsonl:4', 'broken-rollout.jsonl:5', 'broken-rollout.jsonl:6',
    ]);
    expect(progress[progress.length - 1]).toBe(7);
    const detail = await store.getSession(MAIN_ID);
    expect(detail).toMatchObject({ source: 'claude-code', title: 'Fix parse_date dropping UTC offsets', turnCount: 4 });
    const branch = await store.getBranch(MAIN_ID);
    expect(branch.at(-1)!.content).toBe('parse_date now uses datetime.fromisoformat instead of slicing the string, so timezone offsets are preserved.');
    expect(branch.find((message) => message.id.endsWith('10'))!.siblings).toHaveLength(1);
    expect(branch.find((message) => message.id.endsWith('15'))!.siblings.map((id) => id.slice(-2))).toEqual(['11', '15']);
    expect((await store.getSession('chatgpt-6a1f0c2e-5b7d-4e8f-9a0b-1c2d3e4f5a02')).source).toBe('chatgpt');
    expect((await store.getSession('codex-019aa1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b')).turnCount).toBe(5);

    const again = await importInputs(store, await inputsFromPaths(paths));
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 8 });
  });

  it('a grown transcript adds only its new lines, as one more turn', async () => {
    const { dir, store } = await setup();
    const copy = join(dir, 'proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl');
    mkdirSync(join(dir, 'proj'));
    copyFileSync(fixture('claude-code', '-home-user-proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl'), copy);
    await importInputs(store, await inputsFromPaths([copy]));
    const before = (await store.getNodes(MAIN_ID)).length;
    const line = { type: 'user', uuid: 'cc000000-0000-4000-8000-000000000099', parentUuid: 'cc000000-0000-4000-8000-000000000023', sessionId: '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f', timestamp: '2026-11-20T11:00:00.000Z', message: { role: 'user', content: 'One more thing.' } };
    appendFileSync(copy, `${JSON.stringify(line)}\n`);
    const report = await importInputs(store, await inputsFromPaths([copy]));
    expect(report).toMatchObject({ added: 0, updated: 1 });
    expect((await store.getNodes(MAIN_ID)).length).toBe(before + 1);
    expect(await store.getSession(MAIN_ID)).toMatchObject({ turnCount: 5, headId: 'cc000000-0000-4000-8000-000000000099', preview: 'One more thing.' });
  });

  it('reads conversations out of a zipped export; a zip without one is refused', async () => {
    const { dir, store } = await setup();
    const zip = join(dir, 'export.zip');
    writeFileSync(zip, zipSync({ 'chat.html': new TextEncoder().encode('<html></html>'), 'conversations.json': readFileSync(fixture('chatgpt', 'conversations.json')) }));
    const report = await importInputs(store, await inputsFromPaths([zip]));
    expect(report).toMatchObject({ added: 3, skipped: [] });
    const empty = join(dir, 'empty.zip');
    writeFileSync(empty, zipSync({ 'a.txt': new TextEncoder().encode('x') }));
    const refused = await importInputs(store, await inputsFromPaths([empty]));
    expect(refused.added).toBe(0);
    expect(refused.skipped[0]!.reason).toMatch(/no conversations\.json/);
  });

  it('a split export (conversations-000.json, -001.json and its manifest), as a folder or a zip, gives the same sessions as one conversations.json', async () => {
    const { dir, store } = await setup();
    const conversations = JSON.parse(readFileSync(fixture('chatgpt', 'conversations.json'), 'utf8')) as unknown[];
    expect(conversations.length).toBeGreaterThanOrEqual(2);
    const parts = { 'conversations-000.json': conversations.slice(0, 1), 'conversations-001.json': conversations.slice(1) };
    const folder = join(dir, 'split');
    mkdirSync(folder);
    for (const [name, part] of Object.entries(parts)) writeFileSync(join(folder, name), JSON.stringify(part));
    writeFileSync(join(folder, 'export_manifest.json'), JSON.stringify({ files: Object.keys(parts) }));
    const report = await importInputs(store, await inputsFromPaths([folder]));
    expect(report).toMatchObject({ added: conversations.length });
    expect(report.skipped).toEqual([{ file: 'split/export_manifest.json', line: 0, reason: expect.stringMatching(/^not imported: the list of a ChatGPT export's parts .*, which holds no conversation$/) }]);
    const ids = store.listSessions().rows.map((row) => row.id).sort();

    const other = await setup();
    const zip = join(other.dir, 'split.zip');
    const entries = Object.fromEntries(Object.entries(parts).map(([name, part]) => [name, new TextEncoder().encode(JSON.stringify(part))]));
    writeFileSync(zip, zipSync({ ...entries, 'export_manifest.json': new TextEncoder().encode('{}') }));
    expect(await importInputs(other.store, await inputsFromPaths([zip]))).toMatchObject({ added: conversations.length, skipped: [] });
    expect(other.store.listSessions().rows.map((row) => row.id).sort()).toEqual(ids);
  });

  it("the newer sub-agent layout (<session>/subagents/agent-<id>.jsonl beside its .meta.json) gives the same linked sessions as agent-<id>.jsonl beside the transcript", async () => {
    const { dir, store } = await setup();
    const sessionFile = '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl';
    const project = join(dir, 'proj');
    mkdirSync(join(project, '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f', 'subagents'), { recursive: true });
    copyFileSync(fixture('claude-code', '-home-user-proj', sessionFile), join(project, sessionFile));
    const subagents = join(project, '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f', 'subagents');
    copyFileSync(fixture('claude-code', '-home-user-proj', 'agent-5e1f9a2b.jsonl'), join(subagents, 'agent-5e1f9a2b.jsonl'));
    writeFileSync(join(subagents, 'agent-5e1f9a2b.meta.json'), JSON.stringify({ agentType: 'general-purpose', description: 'Find callers', toolUseId: 'toolu_x' }));
    const report = await importInputs(store, await inputsFromPaths([project]));
    expect(report).toMatchObject({ added: 2 });
    expect(report.skipped).toEqual([{ file: expect.stringMatching(/subagents\/agent-5e1f9a2b\.meta\.json$/), line: 0, reason: expect.stringMatching(/^not imported: Claude Code's description of a sub-agent .*holds no conversation$/) }]);
    const subAgentId = `${MAIN_ID}-agent-5e1f9a2b`;
    expect(store.listSessions().rows.map((row) => row.id).sort()).toEqual([MAIN_ID, subAgentId]);
    const task = (await store.getNodes(MAIN_ID)).find((node) => node.metadata?.['subagentSessionId']);
    expect(task?.metadata?.['subagentSessionId']).toBe(subAgentId);
  });

  it('takes planted secrets out before anything is written and counts them', async () => {
    const { dir, store } = await setup();
    const secret = `sk-ant-api03-${'k'.repeat(93)}AA`;
    const file = join(dir, 'secret.jsonl');
    const lines = [
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 'secret-1', timestamp: '2026-11-20T10:00:00Z', message: { role: 'user', content: `use ${secret} and AKIAZ7Q3X5W2R4T6Y8U1` } },
    ];
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
    const report = await importInputs(store, await inputsFromPaths([file]));
    expect(report).toMatchObject({ added: 1, redacted: 2 });
    expect((await store.getSession('cc-secret-1')).redacted).toBe(2);
    expect((await store.getNodes('cc-secret-1'))[0]!.content).toBe('use [REDACTED:anthropic] and [REDACTED:aws]');
    const repo = join(dir, 'state', 'sessions', 'cc-secret-1');
    const objects = execFileSync('git', ['-C', repo, 'cat-file', '--batch-all-objects', '--batch'], { encoding: 'utf8' });
    expect(objects).toContain('[REDACTED:anthropic]');
    expect(objects).not.toContain(secret);
    for (const name of readdirSync(repo, { recursive: true, encoding: 'utf8' })) {
      const path = join(repo, name);
      if (statSync(path).isFile()) expect(readFileSync(path, 'latin1')).not.toContain('sk-ant-api03-k');
    }
  });

  it('stops at a full disk and throws it (the API answers 503), where another failure is only reported', async () => {
    const lines = (id: string) =>
      [
        { type: 'user', uuid: `${id}-1`, parentUuid: null, sessionId: id, timestamp: '2026-11-20T10:00:00Z', message: { role: 'user', content: 'hi' } },
        { type: 'assistant', uuid: `${id}-2`, parentUuid: `${id}-1`, sessionId: id, timestamp: '2026-11-20T10:00:01Z', message: { role: 'assistant', content: 'hello' } },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n');
    const bytes = (text: string) => (async function* () {
      yield new TextEncoder().encode(text);
    })();
    const failing = (error: Error): ImportTarget => ({ importSession: () => Promise.reject(error) });
    const full = Object.assign(new Error("ENOSPC: no space left on device, open '/data/users/u/sessions/s/meta.json'"), { code: 'ENOSPC' });
    await expect(importFile(failing(full), 's1.jsonl', bytes(lines('s1')))).rejects.toBe(full);
    const report = await importFile(failing(new Error('some other trouble')), 's2.jsonl', bytes(lines('s2')));
    expect(report.skipped).toEqual([expect.objectContaining({ reason: expect.stringMatching(/not imported: some other trouble/) })]);
  });

  it('refuses a file that is not the format, with no session made', async () => {
    const { dir, store } = await setup();
    const file = join(dir, 'notes.jsonl');
    writeFileSync(file, 'hello world\n{"type":"user"}\n');
    const report = await importInputs(store, await inputsFromPaths([file]));
    expect(report).toMatchObject({ added: 0, skipped: [{ file: 'notes.jsonl', line: 0, reason: expect.stringMatching(/^refused: not a Claude Code transcript/) }] });
    expect(store.listSessions().rows).toEqual([]);
  });
});
