import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_URL, createSession, createToken, createUser, e2eScratchDir, expect, MODEL_URL, query, signInBrowser, test } from '../fixtures';
import { CLAUDE, runAgent } from '../fixtures/real-agents';
import { Sidebar } from '../pages/sidebar';
import { Tags } from '../pages/tags';

/** Claude Code with only our MCP server, the test model scripted to call `tool` with `args`. */
async function claudeCalls(token: string, tool: string, args: Record<string, unknown>) {
  const scratch = mkdtempSync(join(e2eScratchDir(), 'claude-organise-'));
  const [home, work] = [join(scratch, 'home'), join(scratch, 'work')];
  mkdirSync(home);
  mkdirSync(work);
  const config = join(scratch, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { 'entity-memory': { type: 'http', url: `${BASE_URL}/mcp`, headers: { Authorization: `Bearer ${token}` } } } }));
  const name = `mcp__entity-memory__${tool}`;
  const run = runAgent(CLAUDE, ['-p', '--mcp-config', config, '--strict-mcp-config', '--allowedTools', name, '--', `file this work [[tool:${name} ${JSON.stringify(args)}]]`], {
    HOME: home,
    ANTHROPIC_BASE_URL: MODEL_URL.replace(/\/v1$/, ''),
    ANTHROPIC_API_KEY: 'sk-ant-loopback-test',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  }, work);
  return run.done;
}

test('Claude Code files its session through MCP tag_session: the tag shows live; another user’s session is refused like a missing one', async ({ context, adminApi, user }) => {
  test.setTimeout(240_000);
  const own = await createSession(user.api, { title: 'Agent work to file' });
  const { token } = await createToken(user.api, 'claude code organise');
  await signInBrowser(context, user.api);
  const page = await context.newPage();
  await page.goto('/');
  const sidebar = new Sidebar(page);
  await expect(sidebar.row('Agent work to file')).toBeVisible();

  const tagged = await claudeCalls(token, 'tag_session', { sessionId: own.id, add: ['needs-eyes'] });
  expect(tagged.code, tagged.output).toBe(0);
  expect(tagged.output).toContain('needs-eyes');
  await expect.poll(() => new Tags(page).ofRow(sidebar.nav, 'Agent work to file'), { timeout: 2_000 }).toEqual(['needs-eyes']);

  // Another user's session: the same refusal as an id nobody has, and nothing changes.
  const other = await createUser(adminApi, { label: 'other' });
  const theirs = await createSession(other.api, { title: 'Not yours' });
  const foreign = await claudeCalls(token, 'tag_session', { sessionId: theirs.id, add: ['stolen'] });
  const missing = await claudeCalls(token, 'tag_session', { sessionId: 'never-made-session', add: ['stolen'] });
  expect(foreign.output).toContain(`unknown session: ${theirs.id}`);
  expect(missing.output).toContain('unknown session: never-made-session');
  expect((await query<{ tags: string[] }>(other.api, 'session.get', { id: theirs.id })).data.tags).toEqual([]);
  await other.api.dispose();
});
