import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { tempDir } from '../testing/temp-store.js';
import { readCommits } from '../repo/commit-log.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'fixtures');

interface Expected {
  active: string[];
  archived: string[];
  sessions: Record<
    string,
    {
      title: string;
      preview: string;
      pinned: boolean;
      archived: boolean;
      source: string;
      branch: [string, string][];
      nodes: [string, string, string | null, string][];
      commits: string[];
    }
  >;
}

function unpackFixture(): { dir: string; cleanup: () => void } {
  const temp = tempDir('em-fixture-');
  execFileSync('tar', ['-xzf', join(FIXTURES, 'openprogram-state.tar.gz'), '-C', temp.dir]);
  return temp;
}

describe('a state directory written by OpenProgram', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('lists, reads and walks back exactly as OpenProgram does', async () => {
    const expected = JSON.parse(readFileSync(join(FIXTURES, 'openprogram-state.expected.json'), 'utf8')) as Expected;
    const { dir, cleanup } = unpackFixture();
    cleanups.push(cleanup);
    const store = await SessionStore.open({ stateDir: dir });
    expect(store.startup.rebuilt).toBe(false);

    expect(store.listSessions({ scope: 'active' }).rows.map((row) => row.id)).toEqual(expected.active);
    expect(store.listSessions({ scope: 'archived' }).rows.map((row) => row.id)).toEqual(expected.archived);

    for (const [id, want] of Object.entries(expected.sessions)) {
      const row = (await store.getSession(id))!;
      expect({ title: row.title, preview: row.preview, pinned: row.pinned, archived: row.archived, source: row.source }).toEqual({
        title: want.title,
        preview: want.preview,
        pinned: want.pinned,
        archived: want.archived,
        source: want.source,
      });
      const branch = await store.getBranch(id);
      expect(branch.map((message) => [message.role, message.content])).toEqual(want.branch);

      // Nodes as OpenProgram reads them: role, id, predecessor, caller — from the files we loaded.
      const nodes = await store.getNodes(id);
      const raw = nodes.map((message) => {
        const role = message.role === 'assistant' || message.role === 'system' ? 'llm' : message.role === 'tool' ? 'code' : 'user';
        return [role, message.id, message.parentId, message.calledBy ?? ''];
      });
      expect(raw).toEqual(want.nodes);

      const commits = await readCommits(join(dir, 'sessions', id), 50);
      expect(commits.map((commit) => commit.message)).toEqual(want.commits);
      const listed = await store.listCommits(id);
      expect(listed.commits.map((commit) => commit.message)).toEqual(want.commits);
    }

    // The tool call is folded under the assistant message that made it.
    const tools = await store.getBranch('demo-tools');
    expect(tools[1]!.toolCalls.map((call) => [call.id, call.name, call.content])).toEqual([['k1', 'list_dir', '["a.ts", "b.ts"]']]);
    // The fork: the head is on the second reply, both replies are siblings.
    const fork = await store.getBranch('demo-fork');
    expect(fork[1]!.siblings).toEqual(['f2', 'f3']);
    await store.close();
  });

  it('keeps the 4-digit file width when appending, so OpenProgram still reads in name order', async () => {
    const { dir, cleanup } = unpackFixture();
    cleanups.push(cleanup);
    const store = await SessionStore.open({ stateDir: dir });
    await store.appendMessage('demo-tools', { role: 'user', content: 'and in test?' });
    await store.appendMessage('demo-tools', { role: 'assistant', content: 'nothing' });
    const commit = await store.finalizeTurn('demo-tools');
    expect(commit.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(commit.turn).toBe(2);
    await store.close();
    const files = execFileSync('git', ['-C', join(dir, 'sessions', 'demo-tools'), 'ls-tree', '--name-only', 'HEAD', 'history/'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(files).toEqual([
      'history/0000-u-q1.json',
      'history/0001-l-r1.json',
      'history/0002-c-k1.json',
      'history/0003-l-r2.json',
      expect.stringMatching(/^history\/0004-u-[0-9a-f]{12}\.json$/),
      expect.stringMatching(/^history\/0005-a-[0-9a-f]{12}\.json$/),
    ]);
    // git itself finds the repository sound after our plumbing commit.
    execFileSync('git', ['-C', join(dir, 'sessions', 'demo-tools'), 'fsck', '--strict'], { stdio: 'pipe' });
    const node = JSON.parse(
      readFileSync(join(dir, 'sessions', 'demo-tools', files[5]!), 'utf8'),
    ) as Record<string, unknown>;
    expect(Object.keys(node).sort()).toEqual(['caller', 'created_at', 'id', 'input', 'metadata', 'name', 'output', 'predecessor', 'reads', 'role', 'seq'].sort());
    expect(node['role']).toBe('llm');
    expect(node['seq']).toBe(5);
  });
});
