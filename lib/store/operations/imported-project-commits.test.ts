import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProjectStore, storesClosedAfterEach } from '../testing/project-repos.js';
import type { ImportNode } from './import-session.js';

/** A commit in the project at a given time (seconds) by a given author, with an optional message body. */
function commitAt(dir: string, time: number, author: string, file: string, body = ''): string {
  writeFileSync(join(dir, file), `${file} at ${time}\n`);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CEILING_DIRECTORIES: dirname(dir),
    GIT_AUTHOR_DATE: `@${time} +0000`,
    GIT_COMMITTER_DATE: `@${time} +0000`,
  };
  const [name, email] = author.split('|');
  const run = (...args: string[]) => execFileSync('git', ['-c', `user.name=${name}`, '-c', `user.email=${email}`, ...args], { cwd: dir, env: env as unknown as NodeJS.ProcessEnv, encoding: 'utf8' }).trim();
  run('add', file);
  run('commit', '-q', '-m', `change ${file}${body ? `\n\n${body}` : ''}`);
  return run('rev-parse', 'HEAD');
}

const T = 1_800_000_000;

/** Two imported turns: [T, T+100] and [T+200, T+300]. */
function transcript(): ImportNode[][] {
  return [
    [
      { id: 'u1', createdAt: T, role: 'user', content: 'add a', parentId: null },
      { id: 'a1', createdAt: T + 100, role: 'assistant', content: 'added a', parentId: 'u1' },
    ],
    [
      { id: 'u2', createdAt: T + 200, role: 'user', content: 'add b', parentId: 'a1' },
      { id: 'a2', createdAt: T + 300, role: 'assistant', content: 'added b', parentId: 'u2' },
    ],
  ];
}

describe('an imported transcript in a registered project: its turns linked to the agent\'s commits', () => {
  const stores = storesClosedAfterEach();

  it('moves the session into the project of its folder and links each turn to the agent\'s commits made during it, by time and author', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    const byTrailer = commitAt(projectDir, T + 50, 'Pat Person|pat@example.com', 'a.txt', 'Co-Authored-By: Claude <noreply@anthropic.com>');
    commitAt(projectDir, T + 60, 'Pat Person|pat@example.com', 'person.txt'); // the person's own, in the same minute
    commitAt(projectDir, T + 150, 'Claude|noreply@anthropic.com', 'between.txt'); // between the turns
    const byAuthor = commitAt(projectDir, T + 250, 'Claude|noreply@anthropic.com', 'b.txt');
    commitAt(projectDir, T + 260, 'Codex|codex@openai.com', 'other-agent.txt');

    await store.importSession({ id: 'cc-1', source: 'claude-code', turns: transcript(), meta: { work_dir: join(projectDir, 'src') } });
    expect((await store.getSession('cc-1')).projectId).toBe(project.id);
    const turns = (await store.listTurns('cc-1')).commits;
    const linked = Object.fromEntries(turns.map((turn) => [turn.turn, turn.linkedCommits.map((commit) => commit.sha)]));
    expect(linked).toEqual({ 1: [byTrailer], 2: [byAuthor] });
    expect(turns.find((turn) => turn.turn === 2)!.linkedCommits[0]!.info?.message).toContain('change b.txt');
  });

  it('a folder that is no project stays in Home with no links', async () => {
    const { store, workspace } = await openProjectStore();
    stores.push(store);
    await store.importSession({ id: 'cc-2', source: 'claude-code', turns: transcript(), meta: { work_dir: join(workspace, 'elsewhere') } });
    expect((await store.getSession('cc-2')).projectId).toBe('default');
    expect((await store.listTurns('cc-2')).commits.every((turn) => turn.linkedCommits.length === 0)).toBe(true);
  });
});
