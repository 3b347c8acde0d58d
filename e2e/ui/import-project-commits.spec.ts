import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { e2eScratchDir, expect, getSession, git, makeProjectRepo, mutate, signInBrowser, test, type ProjectSummary } from '../fixtures';

// DESIGN §14, issue 29 item 3: a Claude Code transcript whose folder is a registered project is
// imported into that project, and its turn shows the commit Claude Code made during it.

/** A commit at `iso` time, as Claude Code makes one: the person's identity, Claude as co-author. */
function agentCommit(dir: string, file: string, iso: string, coAuthor: boolean): string {
  writeFileSync(join(dir, file), `${file}\n`);
  git(dir, 'add', file);
  const message = coAuthor ? `Add ${file}\n\nCo-Authored-By: Claude <noreply@anthropic.com>` : `Add ${file}`;
  execFileSync('git', ['-c', 'user.name=Pat Person', '-c', 'user.email=pat@e2e.test', 'commit', '-q', '-m', message], {
    cwd: dir,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_DATE: iso, GIT_COMMITTER_DATE: iso },
  });
  return git(dir, 'rev-parse', 'HEAD');
}

test('an imported Claude Code transcript of a registered project folder lands in that project, its turn showing the commit Claude made during it', async ({ context, user, importPage, timelinePage: timeline }) => {
  const folder = realpathSync(makeProjectRepo(user.id, 'imported-app'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: folder, name: 'Imported App' })).data;
  const claudes = agentCommit(folder, 'feature.txt', '2026-11-25T09:00:30Z', true);
  const persons = agentCommit(folder, 'notes.txt', '2026-11-25T09:00:40Z', false);

  const id = 'c0ffee00-0000-4000-8000-0000000000aa';
  const line = (uuid: string, parentUuid: string | null, timestamp: string, message: unknown) => ({ type: (message as { role: string }).role, uuid, parentUuid, sessionId: id, cwd: folder, timestamp, message });
  const lines = [
    line('p1', null, '2026-11-25T09:00:00.000Z', { role: 'user', content: 'add the feature and commit it' }),
    line('p2', 'p1', '2026-11-25T09:01:00.000Z', { id: 'msg_p2', role: 'assistant', content: [{ type: 'text', text: 'Committed feature.txt.' }] }),
  ];
  const dir = mkdtempSync(join(e2eScratchDir(), 'import-project-'));
  const file = join(dir, `${id}.jsonl`);
  writeFileSync(file, lines.map((entry) => JSON.stringify(entry)).join('\n'));

  await signInBrowser(context, user.api);
  await importPage.importFiles([file]);
  await expect(importPage.figure('Sessions added')).toHaveText('1');

  expect((await getSession(user.api, `cc-${id}`)).projectId).toBe(project.id);
  await timeline.goto(`cc-${id}`);
  const commits = timeline.turn(1).getByRole('list', { name: 'Project commits made during this turn' });
  await expect(commits.getByRole('listitem')).toHaveCount(1);
  await expect(commits.getByRole('listitem')).toContainText(claudes.slice(0, 7));
  await expect(commits.getByRole('listitem')).toContainText('Add feature.txt');
  await expect(timeline.turn(1)).not.toContainText(persons.slice(0, 7));
});
