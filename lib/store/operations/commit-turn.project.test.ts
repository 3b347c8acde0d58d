import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoreEvent } from '../events.js';
import { agentTurn, git, openProjectStore as setup, status, storesClosedAfterEach } from '../testing/project-repos.js';

describe('finalize_turn in a project: the agent commit', () => {
  const stores = storesClosedAfterEach();

  it('a clean tree gets one agent commit with the identity, message and trailers; the timeline links it', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const { begin, end } = await agentTurn(store, 's', projectDir, { 'src/new.ts': 'export const x = 1;\n' });
    expect(begin).toEqual({ turn: 1, projectClean: true });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(end.projectCommitSkipped).toBeNull();
    expect(git(projectDir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>')).toBe(
      'agent (test-model via Entity Memory) <agent@openprogram.local>|agent (test-model via Entity Memory) <agent@openprogram.local>',
    );
    const body = git(projectDir, 'log', '-1', '--format=%B');
    expect(body).toContain('[agent s] turn 1: please write src/new.ts');
    expect(body).toContain('OpenProgram-Session: s');
    expect(body).toContain('OpenProgram-Turn: 1');
    expect(git(projectDir, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/new.ts');
    const timeline = await store.listCommits('s');
    expect(timeline.commits[0]!.projectCommit).toBe(end.projectCommit);
    expect(timeline.commits[0]!.message).toBe('turn: please write src/new.ts');
    const commits = await store.projectCommits(project.id);
    expect(commits.map((c) => [c.sha, c.sessionId, c.turn])).toEqual([[end.projectCommit, 's', 1]]);
  });

  it('a dirty tree gets no commit and a project_commit_skipped event; the user\'s staged work stays staged', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    writeFileSync(join(projectDir, 'README.md'), 'user edit\n');
    git(projectDir, 'add', 'README.md');
    const userHead = git(projectDir, 'rev-parse', 'HEAD');
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    const { begin, end } = await agentTurn(store, 's', projectDir, { 'notes.md': 'agent\n' }, false);
    expect(begin.projectClean).toBe(false);
    expect(end.projectCommit).toBeNull();
    expect(end.projectCommitSkipped?.reason).toBe('dirty_tree');
    expect(events.find((e) => e.type === 'project_commit_skipped')?.data).toMatchObject({ sessionId: 's', projectId: project.id, reason: 'dirty_tree' });
    expect(git(projectDir, 'rev-parse', 'HEAD')).toBe(userHead);
    expect(status(projectDir)).toEqual(['?? notes.md', 'M  README.md']);
    expect(end.sessionCommit).toMatch(/^[0-9a-f]{40}$/); // the session still records the turn
  });

  it('commits known writes even when other files were dirty, leaving the user\'s changes alone', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    writeFileSync(join(projectDir, 'README.md'), 'user staged\n');
    git(projectDir, 'add', 'README.md');
    const { end } = await agentTurn(store, 's', projectDir, { 'src/agent.ts': 'export const a = 1;\n' });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(projectDir, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/agent.ts');
    expect(status(projectDir)).toEqual(['M  README.md']);
  });
});
