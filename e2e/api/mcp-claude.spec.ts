import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, BASE_URL, createSession, createToken, e2eScratchDir, expect, MODEL_URL, test } from '../fixtures';

const CLAUDE = join(process.cwd(), 'node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs');

/** Claude Code as a child process, its output collected; resolves when it exits. */
function runClaude(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CLAUDE, ...args], { cwd, env: { NODE_ENV: 'production', PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

interface Received {
  wire: string;
  body: { messages?: Array<{ role: string; content: unknown }> };
}

test('Claude Code recalls a past session through /mcp: the model asks for search_sessions and the hit reaches it', async ({ user }) => {
  test.setTimeout(150_000);
  const past = await createSession(user.api, { title: 'Deploy notes' });
  await appendMessage(user.api, past.id, { role: 'assistant', content: 'The rollback runbook lives under ops/wyvern-rollback.md' });
  const { token } = await createToken(user.api, 'claude code mcp');

  const scratch = mkdtempSync(join(e2eScratchDir(), 'claude-mcp-'));
  const home = join(scratch, 'home');
  const work = join(scratch, 'work');
  mkdirSync(home);
  mkdirSync(work);
  // What `claude mcp add --transport http entity-memory <origin>/mcp --header …` writes, as a file.
  const config = join(scratch, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { 'entity-memory': { type: 'http', url: `${BASE_URL}/mcp`, headers: { Authorization: `Bearer ${token}` } } } }));
  const modelRoot = MODEL_URL.replace(/\/v1$/, '');
  const seenBefore = ((await (await fetch(`${modelRoot}/requests`)).json()) as { requests: Received[] }).requests.length;

  const tool = 'mcp__entity-memory__search_sessions';
  const prompt = `where is the rollback runbook? [[tool:${tool} {"query":"wyvern"}]]`;
  const run = await runClaude(['-p', '--mcp-config', config, '--strict-mcp-config', '--allowedTools', tool, '--', prompt], {
    HOME: home,
    ANTHROPIC_BASE_URL: modelRoot,
    ANTHROPIC_API_KEY: 'sk-ant-loopback-test',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  }, work);
  expect(run.code, run.output).toBe(0);

  // The model's second request carries the tool's answer: our hit, with its session and message.
  const requests = ((await (await fetch(`${modelRoot}/requests`)).json()) as { requests: Received[] }).requests.slice(seenBefore).filter((r) => r.wire === 'anthropic');
  const sent = JSON.stringify(requests.map((r) => r.body.messages));
  expect(sent).toContain('tool_result');
  expect(sent).toContain(past.id);
  expect(sent).toContain('«wyvern»');
  // and the model's answer (the test model quotes the tool result) is what Claude Code printed
  expect(run.output).toContain('Tool result:');
  expect(run.output).toContain('ops/«wyvern»-rollback.md');
  expect(run.output).toContain(past.id);
});
