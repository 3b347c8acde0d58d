import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError, PreconditionError } from '../errors.js';
import { beginProjectTurn, finishProjectTurn } from './auto-commit.js';
import { projectCommits } from './project-commits.js';
import { cleanupTempDirs, git, makeRepo, tempDir, writeFiles } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

async function agentCommit(repo: string, sessionId: string, turn: number, model = 'gpt-x'): Promise<string> {
  const snap = await beginProjectTurn(repo);
  writeFiles(repo, { [`agent-${sessionId}-${turn}.txt`]: `${turn}\n` });
  const res = await finishProjectTurn(snap, {
    writtenPaths: [`agent-${sessionId}-${turn}.txt`],
    sessionId,
    turn,
    userMessage: `do thing ${turn}`,
    model,
    now: 1_700_000_000_000 + turn * 1000,
  });
  return res.sha!;
}

describe('projectCommits', () => {
  it('lists only agent commits, newest first, with session and turn from the trailers', async () => {
    const repo = makeRepo();
    const first = await agentCommit(repo, 'sessA', 1);
    writeFileSync(join(repo, 'user.txt'), 'u');
    git(repo, 'add', 'user.txt');
    git(repo, 'commit', '-qm', 'user: [agent fake] turn 9');
    const second = await agentCommit(repo, 'sessB', 2, 'claude');
    expect(await projectCommits(repo)).toEqual([
      { sha: second, message: '[agent sessB] turn 2: do thing 2', author: 'agent (claude via Entity Memory)', createdAt: 1_700_000_002_000, sessionId: 'sessB', turn: 2 },
      { sha: first, message: '[agent sessA] turn 1: do thing 1', author: 'agent (gpt-x via Entity Memory)', createdAt: 1_700_000_001_000, sessionId: 'sessA', turn: 1 },
    ]);
    expect((await projectCommits(repo, { limit: 1 })).map((c) => c.sha)).toEqual([second]);
  });

  it('is empty for a folder without a repository or without commits; refuses a missing folder and bad limits', async () => {
    expect(await projectCommits(tempDir())).toEqual([]);
    expect(await projectCommits(makeRepo({}))).toEqual([]);
    const repo = makeRepo();
    renameSync(repo, `${repo}-moved`);
    try {
      await expect(projectCommits(repo)).rejects.toBeInstanceOf(PreconditionError);
    } finally {
      renameSync(`${repo}-moved`, repo);
    }
    await expect(projectCommits(repo, { limit: 0 })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(projectCommits(repo, { limit: 501 })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('refuses a repository whose config can run commands', async () => {
    const repo = makeRepo();
    git(repo, 'config', 'diff.x.textconv', 'evil');
    await expect(projectCommits(repo)).rejects.toThrow(/diff\.x\.textconv/);
  });
});
