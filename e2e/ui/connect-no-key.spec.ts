import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_URL, createToken, e2eScratchDir, expect, query, signInBrowser, test } from '../fixtures';

// Issue 31 item 1: with our token as the API key and no provider key stored, the Connect card says
// so beside the lines, with both ways out, and the real Claude Code is told at once, not after
// three minutes of retries.
const CLAUDE = join(process.cwd(), 'node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs');

test('the Connect card says beside the lines when no provider key is stored, and stores one right there', async ({ context, page, user, connectSection: connect }) => {
  await signInBrowser(context, user.api);
  await connect.goto();
  const notice = connect.missingKeyNotice('Anthropic');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('these lines are refused until there is one');
  await expect(notice).toContainText('send the token beside it (the commented header line below)');
  await expect(connect.lines('Claude Code')).toContainText('ANTHROPIC_CUSTOM_HEADERS="x-entity-memory-token:');
  await connect.tab('Codex').click();
  await expect(connect.missingKeyNotice('OpenAI')).toBeVisible();
  await connect.tab('Claude Code').click();

  await connect.storeKeyOnNotice('Anthropic', 'sk-ant-stored-on-the-card');
  await expect(notice).toHaveCount(0);
  await expect(connect.upstream('anthropic').getByText('Key set')).toBeVisible();
  expect((await query<{ name: string; keySet: boolean }[]>(user.api, 'proxy.listUpstreams')).data.find((upstream) => upstream.name === 'anthropic')?.keySet).toBe(true);
  await page.reload();
  await expect(notice).toHaveCount(0);
});

test('the real Claude Code, our token as its key and no key stored: one refused call, the reason shown there and on the card, no minutes of retries', async ({ context, user, connectSection: connect }) => {
  test.setTimeout(150_000);
  const { token } = await createToken(user.api, 'claude without a key');
  // Counts Claude Code's calls on their way to the server (every byte passed on unchanged).
  const calls: string[] = [];
  const counter = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST') calls.push(req.url ?? '');
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length' && name !== 'connection')) as Record<string, string>;
      fetch(`${BASE_URL}${req.url}`, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks) }).then(
        async (answer) => {
          const forwarded: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding') forwarded[name] = value;
          });
          res.writeHead(answer.status, forwarded).end(Buffer.from(await answer.arrayBuffer()));
        },
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  try {
    const port = (counter.address() as AddressInfo).port;
    const home = mkdtempSync(join(e2eScratchDir(), 'claude-no-key-'));
    const child = spawn(process.execPath, [CLAUDE, '-p', 'hello'], {
      cwd: home,
      env: { NODE_ENV: 'production', PATH: process.env.PATH ?? '', HOME: home, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}/proxy/anthropic`, ANTHROPIC_API_KEY: token, DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(output).toContain('No Anthropic key is stored');
    expect(calls.filter((url) => url.startsWith('/proxy/anthropic/v1/messages'))).toHaveLength(1);
    // Nothing was recorded, yet the card shows the refused exchange as Claude Code's, with why.
    await signInBrowser(context, user.api);
    await connect.goto();
    await expect(connect.lastExchangeFailed('Claude Code')).toContainText('No Anthropic key is stored');
  } finally {
    await new Promise((resolve) => counter.close(resolve));
  }
});
