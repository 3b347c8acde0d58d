import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, captureViews, createSession, e2eDataDir, expect, git, makeProjectRepo, MODEL_NAME, mutate, query, signInBrowser, test, type ProjectSummary } from '../fixtures';

// DESIGN §14 "Blame": a file changed over five agent turns (through the API) and once by hand.
// The gutter, project.blame and `entity-memory blame` all name, per line, what `git blame` and
// our trailers say: the turn and its prompt, or "by you".

const BIN = join(process.cwd(), 'cli', 'bin.mjs');

/** What the file holds after each turn, and the prompt that asked for it. */
const TURNS = [
  { prompt: 'Start app.txt with three words', content: 'alpha\nbeta\ngamma\n' },
  { prompt: 'Shout beta and add delta', content: 'alpha\nBETA\ngamma\ndelta\n' },
  { prompt: 'Add epsilon and zeta <img src=x onerror="window.__blameXss=1">', content: 'alpha\nBETA\ngamma\ndelta\nepsilon\nzeta\n' },
  { prompt: 'Shout alpha', content: 'ALPHA\nBETA\ngamma\ndelta\nepsilon\nzeta\n' },
  { prompt: 'End with eta and theta', content: 'ALPHA\nBETA\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n' },
];

interface BlameLine {
  line: number;
  text: string;
  sha: string;
  sessionId?: string;
  turn?: number;
  prompt?: string;
  messageId?: string;
  by: 'agent' | 'person';
}

/** Per line: `git blame` of the file at HEAD, and that commit's OpenProgram-Turn trailer (null for a person's commit). */
function gitBlameWithTrailers(dir: string, file: string): Array<{ text: string; sha: string; turn: number | null }> {
  const porcelain = git(dir, 'blame', '--line-porcelain', 'HEAD', '--', file).split('\n');
  const out: Array<{ text: string; sha: string; turn: number | null }> = [];
  let sha = '';
  for (const row of porcelain) {
    const header = /^([0-9a-f]{40}) \d+ \d+/.exec(row);
    if (header) sha = header[1]!;
    else if (row.startsWith('\t')) {
      const email = git(dir, 'log', '-1', '--format=%ae', sha);
      const turn = git(dir, 'log', '-1', '--format=%(trailers:key=OpenProgram-Turn,valueonly)', sha).trim();
      out.push({ text: row.slice(1), sha, turn: email === 'agent@openprogram.local' ? Number(turn) : null });
    }
  }
  return out;
}

test('blame: every line names the turn and prompt git blame and our trailers give, the hand-made line says "by you"; the CLI and the API answer the same', async ({ page, context, user, sessionPage }) => {
  test.setTimeout(180_000);
  const dir = realpathSync(makeProjectRepo(user.id, 'blamed'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'Blamed' })).data;
  await createSession(user.api, { id: 'blame-s', title: 'Blame session', projectId: project.id });
  for (const turn of TURNS) {
    await mutate(user.api, 'turn.begin', { sessionId: 'blame-s' });
    await appendMessage(user.api, 'blame-s', { role: 'user', content: turn.prompt });
    writeFileSync(join(dir, 'app.txt'), turn.content);
    await appendMessage(user.api, 'blame-s', { role: 'assistant', content: 'Done.' });
    const finalized = await mutate<{ projectCommit: string | null }>(user.api, 'turn.finalize', { sessionId: 'blame-s', writtenPaths: ['app.txt'], model: MODEL_NAME });
    expect(finalized.data.projectCommit).toMatch(/^[0-9a-f]{40}$/);
  }
  writeFileSync(join(dir, 'app.txt'), TURNS[4]!.content.replace('delta', 'delta by hand'));
  git(dir, 'commit', '-qam', 'a change by the person');

  const expected = gitBlameWithTrailers(dir, 'app.txt');
  // The story the file tells: each turn's surviving lines, and the person's.
  expect(expected.map((line) => line.turn)).toEqual([4, 2, 1, null, 3, 3, 5, 5]);
  const branch = (await query<Array<{ id: string; role: string }>>(user.api, 'message.branch', { sessionId: 'blame-s' })).data;
  const promptIds = branch.filter((message) => message.role === 'user').map((message) => message.id);

  const api = await query<{ lines: BlameLine[] }>(user.api, 'project.blame', { projectId: project.id, path: 'app.txt' });
  expect(api.status).toBe(200);
  expect(api.data.lines.map(({ line, text, sha, turn, prompt, messageId, by, sessionId }) => ({ line, text, sha, turn, prompt, messageId, by, sessionId }))).toEqual(
    expected.map((line, index) => ({
      line: index + 1,
      text: line.text,
      sha: line.sha,
      by: line.turn === null ? 'person' : 'agent',
      turn: line.turn ?? undefined,
      prompt: line.turn === null ? undefined : TURNS[line.turn - 1]!.prompt,
      messageId: line.turn === null ? undefined : promptIds[line.turn - 1],
      sessionId: line.turn === null ? undefined : 'blame-s',
    })),
  );

  // The same attribution as Agent Trace records, beside the JSON export: one per turn, what it added.
  const trace = await user.api.get('/api/export/blame-s?format=agent-trace');
  expect(trace.status()).toBe(200);
  const records = (await trace.text()).trim().split('\n').map((line) => JSON.parse(line) as { version: string; vcs: { revision: string }; files: Array<{ path: string; conversations: Array<{ ranges: unknown[] }> }>; metadata: Record<string, { turn: number; prompt: string }> });
  expect(records.map((record) => [record.metadata['dev.entity-memory']!.turn, record.metadata['dev.entity-memory']!.prompt])).toEqual(TURNS.map((turn, index) => [index + 1, turn.prompt]));
  expect(records[0]).toMatchObject({ version: '0.1', files: [{ path: 'app.txt', conversations: [{ ranges: [{ start_line: 1, end_line: 3 }] }] }] });
  expect(records[4]!.files[0]!.conversations[0]!.ranges).toEqual([{ start_line: 7, end_line: 8 }]);

  // The CLI, as a child process over the running server, finds the project by the file's folder.
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, '--data', e2eDataDir(), '--user', user.email, 'blame', join(dir, 'app.txt'), ...args], { encoding: 'utf8' });
  const json = run('--json');
  expect(json.stderr).toBe('');
  expect(json.status).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual(api.data);
  const tsv = run().stdout.trim().split('\n');
  expect(tsv[0]).toBe('LINE\tSHA\tBY\tSESSION\tTURN\tAGENT\tPROMPT\tTEXT');
  expect(tsv.slice(1).map((row) => row.split('\t')).map((cells) => [Number(cells[0]), cells[1], cells[4] === '' ? null : Number(cells[4]), cells[7]])).toEqual(
    expected.map((line, index) => [index + 1, line.sha, line.turn, line.text]),
  );

  // The page: from the project to its files to the gutter.
  await signInBrowser(context, user.api);
  await page.goto(`/projects/${project.id}`);
  await page.getByRole('link', { name: 'Files and blame' }).click();
  await page.getByRole('navigation', { name: 'Files' }).getByRole('link', { name: 'app.txt' }).click();
  const table = page.getByRole('table', { name: 'Blame of app.txt' });
  await expect(table).toBeVisible();
  const rows = table.getByRole('row');
  await expect(rows).toHaveCount(expected.length + 1); // the header row
  for (const [index, line] of expected.entries()) {
    const row = rows.nth(index + 1);
    const gutter = row.getByRole('cell').nth(0);
    await expect(row.getByRole('cell').nth(2)).toHaveText(line.text);
    const startsRun = index === 0 || expected[index - 1]!.sha !== line.sha;
    if (line.turn === null) {
      await expect(gutter).toHaveText('by you');
      continue;
    }
    if (!startsRun) {
      await expect(gutter).toHaveText(`Turn ${line.turn}`);
      continue;
    }
    const link = gutter.getByRole('link', { name: `Turn ${line.turn}`, exact: true });
    await expect(link).toHaveAccessibleDescription(new RegExp(`^${TURNS[line.turn - 1]!.prompt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await expect(link).toHaveAttribute('href', `/sessions/blame-s?m=${promptIds[line.turn - 1]}`);
  }
  // The prompt shows on keyboard focus, as on hover; a prompt's markup stays text.
  const third = table.getByRole('link', { name: 'Turn 3', exact: true });
  await third.focus();
  await expect(page.getByRole('tooltip').filter({ hasText: 'Add epsilon and zeta' })).toBeVisible();
  expect(await page.evaluate(() => (window as { __blameXss?: number }).__blameXss)).toBeUndefined();
  await captureViews(page, 'blame-file');
  await third.click();
  await expect(page).toHaveURL(new RegExp(`/sessions/blame-s\\?m=${promptIds[2]}$`), { timeout: 30_000 });
  await expect(page.getByText('Add epsilon and zeta', { exact: false }).first()).toBeVisible();

  // The list of files, and the refusals said on the page.
  writeFileSync(join(dir, 'logo.bin'), Buffer.from([0, 1, 2, 3]));
  git(dir, 'add', 'logo.bin');
  git(dir, 'commit', '-qm', 'a binary');
  await page.goto(`/projects/${project.id}/blame`);
  await expect(page.getByRole('navigation', { name: 'Files' }).getByRole('link')).toHaveText(['README.md', 'app.txt', 'logo.bin']);
  await captureViews(page, 'blame-files');
  await page.getByRole('link', { name: 'logo.bin' }).click();
  await expect(page.getByText('logo.bin is a binary file: blame shows text files only')).toBeVisible();
  expect((await query(user.api, 'project.blame', { projectId: project.id, path: '../outside.txt' })).status).toBe(400);
  expect((await query(user.api, 'project.blame', { projectId: project.id, path: 'missing.txt' })).status).toBe(404);

  // The session page's Export menu downloads the same Agent Trace records.
  await sessionPage.goto('blame-s');
  const exportMenu = await sessionPage.openExportMenu();
  const [download] = await Promise.all([page.waitForEvent('download'), exportMenu.item('Export attribution (Agent Trace)').click()]);
  expect(download.suggestedFilename()).toBe('blame-s.agent-trace.jsonl');
  const downloaded = readFileSync((await download.path())!, 'utf8').trim().split('\n');
  expect(downloaded.map((line) => (JSON.parse(line) as { metadata: Record<string, { turn: number }> }).metadata['dev.entity-memory']!.turn)).toEqual(TURNS.map((_, index) => index + 1));
});
