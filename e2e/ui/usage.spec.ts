import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureViews, createToken, e2eScratchDir, expect, MODEL_URL, mutate, query, signInBrowser, test } from '../fixtures';
import { CLAUDE, CODEX, claudeEnv, runAgent, writeCodexProxyConfig } from '../fixtures/real-agents';

// Issue 33 / DESIGN §15: Claude Code and Codex through the recording proxy against the loopback
// model, which sends usage; the session header and the Usage page show the tokens it sent, the
// cost from the price table, a price from a later day changes nothing, and each CSV is its table.

interface Received {
  wire: string;
  body: { tools?: unknown[] };
  sent: string;
}

/** The SSE events of an answer as the loopback model sent it. */
const events = (sent: string) => sent.split('\n').filter((line) => line.startsWith('data: ')).map((line) => { try { return JSON.parse(line.slice(6)) as Record<string, any>; } catch { return null; } }).filter((event) => event !== null);

/** What the loopback model sent for the conversation calls (tools offered) carrying `marker`: read here from its own bytes. */
async function sentUsage(wire: 'anthropic' | 'responses', marker: string): Promise<{ input: number; output: number; cacheRead: number }> {
  const { requests } = (await (await fetch(`${MODEL_URL.replace(/\/v1$/, '')}/requests`)).json()) as { requests: Received[] };
  const total = { input: 0, output: 0, cacheRead: 0 };
  for (const request of requests.filter((r) => r.wire === wire && JSON.stringify(r.body).includes(marker) && (r.body.tools?.length ?? 0) > 0)) {
    for (const event of events(request.sent)) {
      if (wire === 'anthropic' && event.type === 'message_start') {
        total.input += event.message.usage.input_tokens;
        total.cacheRead += event.message.usage.cache_read_input_tokens;
      }
      if (wire === 'anthropic' && event.type === 'message_delta') total.output += event.usage.output_tokens;
      if (wire === 'responses' && event.type === 'response.completed') {
        total.input += event.response.usage.input_tokens - event.response.usage.input_tokens_details.cached_tokens;
        total.cacheRead += event.response.usage.input_tokens_details.cached_tokens;
        total.output += event.response.usage.output_tokens;
      }
    }
  }
  return total;
}

/** One CSV line's cells (RFC 4180 quoting: counts such as 1,234 are quoted). */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  for (const match of line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)) cells.push(match[1] !== undefined ? match[1].replace(/""/g, '"') : (match[2] ?? ''));
  return cells;
}

const tokens = (value: number) => value.toLocaleString('en-US');
const dollars = (value: number) => `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
const today = () => new Date().toISOString().slice(0, 10);
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/** A table's cells as text, header first (what the CSV must hold). */
async function tableCells(table: import('@playwright/test').Locator): Promise<string[][]> {
  const rows = await table.getByRole('row').all();
  return Promise.all(rows.map(async (row) => (await row.getByRole('cell').or(row.getByRole('columnheader')).allTextContents()).map((cell) => cell.trim())));
}

test('Claude Code and Codex through the proxy: the header and the Usage page show the tokens the model sent, priced; a later price changes nothing before its day; each CSV is its table', async ({ context, page, user, adminApi }) => {
  test.setTimeout(300_000);
  const marker = `usage-${randomUUID().slice(0, 8)}`;
  // Claude Code (Messages, streamed): its conversation call offers tools; the loopback model answers in text.
  expect((await mutate(user.api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-usage-e2e' })).status).toBe(200);
  const claudeToken = (await createToken(user.api, 'claude code')).token;
  const claudeHome = mkdtempSync(join(e2eScratchDir(), 'claude-home-'));
  const sessionUuid = randomUUID();
  const claude = await runAgent(CLAUDE, ['-p', '--session-id', sessionUuid, '--', `count my tokens ${marker}`], claudeEnv(claudeHome, claudeToken), claudeHome).done;
  expect(claude.code, claude.output).toBe(0);
  // Codex (Responses, streamed), on the model test-model, which has no shipped price.
  const codexToken = (await createToken(user.api, 'codex')).token;
  const codexHome = mkdtempSync(join(e2eScratchDir(), 'codex-home-'));
  writeCodexProxyConfig(codexHome, codexToken);
  const codex = await runAgent(CODEX, ['exec', '--skip-git-repo-check', `count my tokens too ${marker}`], { HOME: codexHome, CODEX_HOME: codexHome, ENTITY_MEMORY_TOKEN: 'sk-own-openai-key' }, codexHome).done;
  expect(codex.code, codex.output).toBe(0);

  const claudeSent = await sentUsage('anthropic', marker);
  const codexSent = await sentUsage('responses', marker);
  expect(claudeSent.output).toBeGreaterThan(0);
  expect(codexSent.output).toBeGreaterThan(0);
  const range = { from: today(), to: today(), by: 'day' };
  await expect.poll(async () => (await query<{ totals: { output: number | null } }>(user.api, 'usage.summary', range)).data.totals.output).toBe(claudeSent.output + codexSent.output);

  // The price table: test-model priced by the admin from long ago; a price from tomorrow on changes nothing today.
  const price = { model: 'test-model', input: 1000, output: 2000, cacheRead: 100, cacheWrite: 0, from: '2020-01-01' };
  expect((await mutate(adminApi, 'usage.setPrice', price)).status).toBe(200);
  expect((await mutate(adminApi, 'usage.setPrice', { ...price, input: 9000, output: 9000, from: tomorrow() })).status).toBe(200);
  const codexCost = (codexSent.input * 1000 + codexSent.output * 2000 + codexSent.cacheRead * 100) / 1_000_000;

  await signInBrowser(context, user.api);
  const claudeId = `cc-${sessionUuid}`;
  await page.goto(`/sessions/${claudeId}`);
  const header = page.getByLabel('Session usage');
  await expect(header).toContainText(`Input ${tokens(claudeSent.input)}`);
  await expect(header).toContainText(`Output ${tokens(claudeSent.output)}`);
  await expect(header).toContainText(`Cache read ${tokens(claudeSent.cacheRead)}`);

  await page.goto('/usage');
  await page.getByLabel('Split by').selectOption('agent');
  await expect(page.getByRole('radiogroup', { name: 'Period' }).getByRole('radio', { name: 'Day' })).toBeChecked();
  await expect(page.getByRole('img', { name: 'Cost by day and agent' })).toBeVisible();
  const costTable = page.getByRole('region', { name: 'Cost', exact: true }).getByRole('table', { name: 'Cost', exact: true });
  const codexRow = costTable.getByRole('row').filter({ hasText: 'Codex' });
  await expect(codexRow).toContainText(tokens(codexSent.input));
  await expect(codexRow).toContainText(tokens(codexSent.output));
  await expect(codexRow).toContainText(dollars(codexCost));
  const claudeRow = costTable.getByRole('row').filter({ hasText: 'Claude Code' });
  await expect(claudeRow).toContainText(tokens(claudeSent.output));
  await expect(page.getByRole('region', { name: 'Top sessions by cost' }).getByRole('table')).toContainText(dollars(codexCost));

  // The CSV of each chart is exactly its table.
  for (const name of ['Cost', 'Tokens', 'Cache hit rate', 'Top sessions by cost']) {
    const section = page.getByRole('region', { name, exact: true });
    const downloaded = page.waitForEvent('download');
    await section.getByRole('button', { name: 'Download CSV' }).click();
    const csv = readFileSync((await (await downloaded).path())!, 'utf8');
    const parsed = csv.trimEnd().split('\r\n').map(csvCells);
    expect(parsed).toEqual(await tableCells(section.getByRole('table', { name, exact: true })));
  }
  await captureViews(page, 'usage');

  // A price from today on changes today's figures; the one from tomorrow still does not count.
  expect((await mutate(adminApi, 'usage.setPrice', { ...price, input: 3000, from: today() })).status).toBe(200);
  await page.reload();
  await page.getByLabel('Split by').selectOption('agent');
  const repriced = (codexSent.input * 3000 + codexSent.output * 2000 + codexSent.cacheRead * 100) / 1_000_000;
  await expect(page.getByRole('region', { name: 'Cost', exact: true }).getByRole('table', { name: 'Cost', exact: true }).getByRole('row').filter({ hasText: 'Codex' })).toContainText(dollars(repriced));

  // By month: the same figures, one period, and the picture says so.
  await page.getByRole('radiogroup', { name: 'Period' }).getByRole('radio', { name: 'Month' }).check();
  await expect(page.getByRole('img', { name: 'Cost by month and agent' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Cost', exact: true }).getByRole('table', { name: 'Cost', exact: true }).getByRole('row').filter({ hasText: 'Codex' })).toContainText(dollars(repriced));
});
