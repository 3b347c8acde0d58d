/**
 * The importers on transcripts the real agents wrote: Claude Code (its cli-wrapper, as npm here
 * runs no install scripts) and Codex CLI, each against the project's loopback model server in
 * its provider's wire format, with a prompt that makes the model ask for a tool. Their own
 * files (~/.claude/projects/…/*.jsonl, $CODEX_HOME/sessions/…/rollout-*.jsonl) are then parsed.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importInputs, inputsFromPaths } from '../lib/import/index.js';
import { writeCodexConfig } from '../lib/llm/testing/codex-config.js';
import { startModelServer, type ModelServer } from '../lib/llm/testing/model-server.js';
import { redactMessage } from '../lib/redact/index.js';
import { SessionStore } from '../lib/store/index.js';

const ROOT = join(import.meta.dirname, '..');
const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs');
const CODEX = join(ROOT, 'node_modules/@openai/codex/bin/codex.js');
const PLANTED = `sk-ant-api03-${'R3al_'.repeat(18)}agentAA`;

function run(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [command, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

function filesUnder(dir: string, suffix: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(path, suffix, out);
    else if (entry.name.endsWith(suffix)) out.push(path);
  }
  return out;
}

describe('transcripts written by the real agents', () => {
  let model: ModelServer;
  let scratch: string;
  let store: SessionStore;
  beforeAll(async () => {
    model = await startModelServer();
    scratch = mkdtempSync(join(tmpdir(), 'import-real-agents-'));
    store = await SessionStore.open({ stateDir: join(scratch, 'state'), redactor: redactMessage });
  });
  afterAll(async () => {
    await store?.close();
    await model?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('Claude Code: its transcript with a Write call imports as one session with the tool node, the key redacted, and again adds nothing', { timeout: 180_000 }, async () => {
    const home = join(scratch, 'claude-home');
    const work = join(scratch, 'claude-work');
    mkdirSync(home);
    mkdirSync(work);
    const sessionId = randomUUID();
    const target = join(work, 'hello.txt');
    const prompt = `write the greeting [[tool:Write {"file_path":"${target}","content":"hello from claude"}]] key ${PLANTED}`;
    const result = await run(CLAUDE, ['-p', '--session-id', sessionId, '--permission-mode', 'acceptEdits', '--allowedTools', 'Write', '--', prompt], {
      HOME: home,
      ANTHROPIC_BASE_URL: model.root,
      ANTHROPIC_API_KEY: 'sk-ant-test-key-for-the-loopback-model',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }, work);
    expect(result.code, result.output).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('hello from claude');
    const transcripts = filesUnder(join(home, '.claude', 'projects'), '.jsonl');
    expect(transcripts.some((path) => path.endsWith(`${sessionId}.jsonl`))).toBe(true);

    const report = await importInputs(store, await inputsFromPaths([join(home, '.claude', 'projects')]));
    expect(report.skipped).toEqual([]);
    expect(report.added).toBeGreaterThanOrEqual(1);
    expect(report.redacted).toBeGreaterThanOrEqual(1);
    const id = `cc-${sessionId}`;
    expect((await store.getSession(id)).source).toBe('claude-code');
    const branch = await store.getBranch(id);
    expect(branch[0]).toMatchObject({ role: 'user' });
    expect(branch[0]!.content).toContain('[REDACTED:anthropic]');
    const tools = branch.flatMap((message) => message.toolCalls);
    expect(tools.map((tool) => tool.name)).toContain('Write');
    expect(tools.find((tool) => tool.name === 'Write')!.input).toMatchObject({ file_path: target, content: 'hello from claude' });
    expect(tools.find((tool) => tool.name === 'Write')!.content).toContain('hello.txt');
    expect(branch.at(-1)!.role).toBe('assistant');
    expect(JSON.stringify(await store.getNodes(id))).not.toContain(PLANTED);

    const again = await importInputs(store, await inputsFromPaths([join(home, '.claude', 'projects')]));
    expect(again.added + again.updated).toBe(0);
  });

  it('Codex: its rollout imports as one session, each prompt and reply once', { timeout: 180_000 }, async () => {
    const home = join(scratch, 'codex-home');
    const work = join(scratch, 'codex-work');
    mkdirSync(home);
    mkdirSync(work);
    writeCodexConfig(home, { id: 'loopback', name: 'Loopback test model', baseUrl: model.url, envKey: 'LOOPBACK_KEY' });
    const result = await run(CODEX, ['exec', '--skip-git-repo-check', 'hello from codex'], { HOME: home, CODEX_HOME: home, LOOPBACK_KEY: 'sk-loopback' }, work);
    expect(result.code, result.output).toBe(0);
    const rollouts = filesUnder(join(home, 'sessions'), '.jsonl');
    expect(rollouts).toHaveLength(1);

    const report = await importInputs(store, await inputsFromPaths([join(home, 'sessions')]));
    expect(report.skipped).toEqual([]);
    expect(report.added).toBe(1);
    const [row] = store.listSessions({ source: 'codex' }).rows;
    expect(row!.id).toMatch(/^codex-[0-9a-f-]{36}$/);
    const branch = await store.getBranch(row!.id);
    expect(branch.map((message) => [message.role, message.content])).toEqual([
      ['user', 'hello from codex'],
      ['assistant', 'You said: hello from codex'],
    ]);
  });
});
