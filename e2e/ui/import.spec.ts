import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { appendMessage, captureViews, createSession, e2eDataDir, e2eScratchDir, expect, expectNowhereOnDisk, getSession, signInBrowser, stateDirOf, test } from '../fixtures';

// The shared sample files (CI keeps shared/ beside the repo).
const FIXTURES = resolve(process.cwd(), '..', 'shared', 'fixtures', 'import');
const CC_MAIN = join(FIXTURES, 'claude-code', '-home-user-proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl');
const CC_AGENT = join(FIXTURES, 'claude-code', '-home-user-proj', 'agent-5e1f9a2b.jsonl');
const CODEX = join(FIXTURES, 'codex', '2026', '11', '20', 'rollout-2026-11-20T10-00-00-019aa1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b.jsonl');
const CHATGPT = join(FIXTURES, 'chatgpt', 'conversations.json');

test('each kind imported through the page shows in the sidebar with its branches and folded tool calls; importing again adds nothing', async ({ user, page, context, importPage, sidebar, sessionPage: session }) => {
  await signInBrowser(context, user.api);
  await importPage.importFiles([CC_MAIN, CC_AGENT, CODEX, CHATGPT]);
  // Claude Code: the session and its sub-agent; Codex: one rollout; ChatGPT: three conversations
  await expect(importPage.figure('Sessions added')).toHaveText('6');
  await expect(importPage.figure('Secrets redacted')).toHaveText('0');
  await captureViews(page, 'import-report');

  for (const title of ['Fix parse_date dropping UTC offsets', 'Sourdough starter smell', 'ISO date regex', 'Plant identification', 'Add a --verbose flag to the CLI in src/cli.py.']) {
    await expect(sidebar.row(title)).toBeVisible();
  }

  // Claude Code: the rewind is a fork at the prompt after A4; the current branch is the later one
  await sidebar.row('Fix parse_date dropping UTC offsets').click();
  await expect(session.title).toHaveText('Fix parse_date dropping UTC offsets');
  const fork = session.fork(2, 2);
  await expect(fork).toBeVisible();
  await expect(page.getByText('Yes, go ahead. Python 3.11+ only is fine, no new dependencies.')).toBeVisible();
  const firstReply = session.messageById('cc000000-0000-4000-8000-000000000002');
  const bash = session.toolCall(firstReply, 'Bash');
  await expect(bash).toBeVisible();
  await expect(bash).not.toHaveAttribute('open', '');
  await captureViews(page, 'import-claude-code');
  await session.previousBranch(fork);
  await expect(page.getByText('Yes, but it has to keep working on Python 3.8.')).toBeVisible();

  // ChatGPT: an edited prompt and a regenerated answer are both forks; the python call is folded
  await sidebar.row('Sourdough starter smell').click();
  await expect(session.fork(2, 2)).toBeVisible();
  await sidebar.row('ISO date regex').click();
  await expect(session.fork(2, 2)).toBeVisible();
  const call = session.messageById('b8d4f2e1-0000-4000-8000-0000000000b4');
  await expect(session.toolCall(call, 'python')).toBeVisible();
  await expect(session.toolCall(call, 'python')).not.toHaveAttribute('open', '');

  // Codex: each prompt once, tool calls folded under the step that made them
  await sidebar.row('Add a --verbose flag to the CLI in src/cli.py.').click();
  // Its title is its first prompt (the heading and the row say it too): the prompt itself is shown once.
  await expect(session.message('User').filter({ hasText: 'Add a --verbose flag to the CLI in src/cli.py.' })).toHaveCount(1);
  await expect(page.getByText('environment_context')).toHaveCount(0);
  const shell = session.toolCall(page.locator('#main'), 'shell');
  await expect(shell).toHaveCount(4);
  await captureViews(page, 'import-codex');

  await importPage.importFiles([CC_MAIN, CC_AGENT, CODEX, CHATGPT]);
  await expect(importPage.figure('Sessions added')).toHaveText('0');
  await expect(importPage.figure('Sessions updated')).toHaveText('0');
  await expect(importPage.figure('Unchanged')).toHaveText('6');
});

test('a file that is not the format is refused whole and named in the report', async ({ user, context, importPage }) => {
  await signInBrowser(context, user.api);
  const dir = mkdtempSync(join(e2eScratchDir(), 'import-bad-'));
  const notes = join(dir, 'notes.jsonl');
  writeFileSync(notes, 'just some notes\nnot a transcript\n');
  await importPage.importFiles([notes, join(FIXTURES, 'claude-code', 'broken-session.jsonl')]);
  const report = importPage.report;
  await expect(importPage.figure('Sessions added')).toHaveText('1');
  await expect(report.getByText(/refused: not a Claude Code transcript/)).toBeVisible();
  await expect(report.getByText('broken-session.jsonl:3')).toBeVisible();
  await expect(report.getByText('broken-session.jsonl:5')).toBeVisible();
});

test('planted keys are nowhere under the data directory after an import and an API append', async ({ user, context, importPage, sessionPage }) => {
  const anthropic = `sk-ant-api03-${'Qw9_'.repeat(23)}zAA`;
  const aws = 'AKIAZ7Q3X5W2R4T6Y8U1';
  const pemBody = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0';
  const pem = `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----`;
  const dir = mkdtempSync(join(e2eScratchDir(), 'import-secret-'));
  const file = join(dir, 'c0ffee00-0000-4000-8000-000000000001.jsonl');
  const lines = [
    { type: 'user', uuid: 'p1', parentUuid: null, sessionId: 'c0ffee00-0000-4000-8000-000000000001', timestamp: '2026-11-25T09:00:00.000Z', message: { role: 'user', content: `deploy with ${anthropic} and ${aws}` } },
    { type: 'assistant', uuid: 'p2', parentUuid: 'p1', sessionId: 'c0ffee00-0000-4000-8000-000000000001', timestamp: '2026-11-25T09:00:05.000Z', message: { id: 'msg_p2', role: 'assistant', content: [{ type: 'text', text: `Here is the key file:\n${pem}` }] } },
  ];
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));

  await signInBrowser(context, user.api);
  await importPage.importFiles([file]);
  await expect(importPage.figure('Secrets redacted')).toHaveText('3');
  expect((await getSession(user.api, 'cc-c0ffee00-0000-4000-8000-000000000001')).redacted).toBe(3);

  // the API's way in redacts too, and counts it on the session
  await createSession(user.api, { id: 'secret-append' });
  const appended = await appendMessage(user.api, 'secret-append', { role: 'user', content: `my key: ${anthropic}` });
  expect(appended.content).toBe('my key: [REDACTED:anthropic]');
  expect((await getSession(user.api, 'secret-append')).redacted).toBe(1);

  await sessionPage.goto('cc-c0ffee00-0000-4000-8000-000000000001');
  await expect(sessionPage.message('User')).toContainText('deploy with [REDACTED:anthropic] and [REDACTED:aws]');
  await expect(sessionPage.message('Assistant')).toContainText('[REDACTED:private-key]');

  const needles = [anthropic, aws, pemBody, 'sk-ant-api03-Qw9'];
  const { repos } = await expectNowhereOnDisk(needles, { gitRoots: [stateDirOf(user.id)] });
  // the two sessions' own repositories were among those read
  expect(repos.filter((repo) => repo.startsWith(stateDirOf(user.id))).length).toBeGreaterThanOrEqual(2);
});

test('cli import --watch, with the server running, brings a new Claude Code turn into the open session', async ({ user, page, context, sessionPage: session }) => {
  const projects = mkdtempSync(join(e2eScratchDir(), 'import-watch-'));
  mkdirSync(join(projects, '-home-user-proj'));
  const transcript = join(projects, '-home-user-proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl');
  copyFileSync(CC_MAIN, transcript);
  let watcher: ChildProcess | null = null;
  const output: string[] = [];
  try {
    watcher = spawn(process.execPath, [join(process.cwd(), 'cli', 'bin.mjs'), '--data', e2eDataDir(), '--user', user.email, 'import', '--json', '--watch', projects], { stdio: ['ignore', 'pipe', 'pipe'] });
    watcher.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    watcher.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    await expect.poll(() => output.join(''), { timeout: 30_000 }).toContain('"added":1');

    await signInBrowser(context, user.api);
    await session.goto('cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f');
    await expect(session.title).toHaveText('Fix parse_date dropping UTC offsets');
    const next = [
      { type: 'user', uuid: 'cc000000-0000-4000-8000-000000000031', parentUuid: 'cc000000-0000-4000-8000-000000000023', sessionId: '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f', timestamp: '2026-11-20T10:20:00.000Z', message: { role: 'user', content: 'Also add a test for negative offsets.' } },
      { type: 'assistant', uuid: 'cc000000-0000-4000-8000-000000000032', parentUuid: 'cc000000-0000-4000-8000-000000000031', sessionId: '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f', timestamp: '2026-11-20T10:20:04.000Z', message: { id: 'msg_watch_1', role: 'assistant', content: [{ type: 'text', text: 'Added test_negative_offset to tests/test_dates.py.' }] } },
    ];
    appendFileSync(transcript, `\n${next.map((line) => JSON.stringify(line)).join('\n')}\n`);
    // within seconds, without a reload
    // In the conversation (the sidebar's row previews the newest prompt too).
    const conversation = page.locator('#main');
    await expect(conversation.getByText('Added test_negative_offset to tests/test_dates.py.')).toBeVisible({ timeout: 10_000 });
    await expect(conversation.getByText('Also add a test for negative offsets.')).toBeVisible();
    expect(output.join('')).toContain('"updated":1');
    expect((await getSession(user.api, 'cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f')).turnCount).toBe(5);
  } finally {
    watcher?.kill('SIGINT');
  }
});
