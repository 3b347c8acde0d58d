import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { createToken, e2eScratchDir, expect, git, makeProjectRepo, mutate, query, signInBrowser, test, type ProjectSummary } from '../fixtures';
import { CLAUDE, claudeEnv, runAgent } from '../fixtures/real-agents';
import { TimelinePage } from '../pages/timeline';

// DESIGN §14, issue 29 item 2: two real Claude Code runs in one registered folder at once. Each
// exchange commits what changed since the folder's last commit, so every change is committed
// exactly once, and a commit that may hold the other session's edits says so.

/** The sha, OpenProgram-Session, files and Shared-With trailers of each commit after `since`, oldest first. */
function commitsAfter(dir: string, since: string): { sha: string; session: string; files: string[]; sharedWith: string[] }[] {
  const shas = git(dir, 'rev-list', '--reverse', `${since}..HEAD`).split('\n').filter(Boolean);
  return shas.map((sha) => {
    const body = git(dir, 'log', '-1', '--format=%B', sha);
    return {
      sha,
      session: /^OpenProgram-Session: (\S+)$/m.exec(body)?.[1] ?? '',
      files: git(dir, 'show', '--name-only', '--format=', sha).split('\n').filter(Boolean).sort(),
      sharedWith: [...body.matchAll(/^OpenProgram-Shared-With: (\S+)$/gm)].map((match) => match[1]!),
    };
  });
}

test('two Claude Code runs in one folder at once: every change committed exactly once, and the commit holding the other run\'s file says so on the timeline', async ({ context, page, user }) => {
  test.setTimeout(300_000);
  const folder = realpathSync(makeProjectRepo(user.id, 'shared-app'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: folder, name: 'Shared App' })).data;
  const initial = git(folder, 'rev-parse', 'HEAD');
  expect((await mutate(user.api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-shared-folder-e2e' })).status).toBe(200);
  const { token } = await createToken(user.api, 'claude code');
  const start = (prompt: string) => {
    const home = mkdtempSync(join(e2eScratchDir(), 'claude-home-'));
    const id = randomUUID();
    const run = runAgent(CLAUDE, ['-p', '--session-id', id, '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', '--', prompt], claudeEnv(home, token), folder);
    return { id: `cc-${id}`, run };
  };

  // A writes its file, then keeps working (its tool is still running) while B writes and commits.
  const a = start('write a.txt and think [[tool:Bash {"command":"echo from-a > a.txt && sleep 25","description":"write a.txt, then work on"}]]');
  await expect.poll(() => existsSync(join(folder, 'a.txt')), { timeout: 90_000 }).toBe(true);
  const b = start('write b.txt [[tool:Bash {"command":"echo from-b > b.txt","description":"write b.txt"}]]');
  const [ranA, ranB] = await Promise.all([a.run.done, b.run.done]);
  expect(ranA.code, ranA.output).toBe(0);
  expect(ranB.code, ranB.output).toBe(0);
  for (const id of [a.id, b.id]) await expect.poll(async () => (await query<{ turnCount: number }>(user.api, 'session.get', { id })).data?.turnCount ?? 0).toBe(2);

  const commits = commitsAfter(folder, initial);
  const files = commits.flatMap((commit) => commit.files).sort();
  // Every change exactly once, nothing left over.
  expect(files).toEqual(['a.txt', 'b.txt']);
  expect(git(folder, 'status', '--porcelain')).toBe('');
  for (const commit of commits) expect([a.id, b.id]).toContain(commit.session);
  // A's file went into a commit of B's, made while A was working: that commit names A.
  const holdingA = commits.find((commit) => commit.files.includes('a.txt'))!;
  expect(holdingA.session).toBe(b.id);
  expect(holdingA.sharedWith).toEqual([a.id]);
  // Never a silent mix: any commit holding the other run's file names that run.
  for (const commit of commits) {
    const other = commit.session === a.id ? { id: b.id, file: 'b.txt' } : { id: a.id, file: 'a.txt' };
    if (commit.files.includes(other.file)) expect(commit.sharedWith).toContain(other.id);
  }
  expect((await query<{ projectId: string }>(user.api, 'session.get', { id: b.id })).data.projectId).toBe(project.id);

  await signInBrowser(context, user.api);
  const timeline = new TimelinePage(page);
  await timeline.goto(b.id);
  // Every commit of B's made while A ran its tools says so (the one holding a.txt among them), naming A.
  const shared = page.getByRole('region', { name: 'Project commit' }).filter({ hasText: 'May include edits of' });
  await expect(shared).toHaveCount(commits.filter((commit) => commit.session === b.id && commit.sharedWith.length > 0).length);
  await expect(shared.filter({ hasText: holdingA.sha.slice(0, 8) })).toHaveCount(1);
  for (const link of await shared.getByRole('link').all()) await expect(link).toHaveAttribute('href', `/sessions/${a.id}`);
});
