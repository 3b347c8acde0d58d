import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoreEvent } from '../events.js';
import { tempStoresPerTest } from '../testing/temp-store.js';
import { readRegistryOnDisk } from '../testing/registry-on-disk.js';

describe('create_session', () => {
  const fresh = tempStoresPerTest();

  it('creates the repo layout of FORMAT.md and returns an existing id unchanged', async () => {
    const { store, dir } = await fresh();
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));
    const first = await store.createSession({ id: 's1', source: 'web', agentId: 'main' });
    expect(first.created).toBe(true);
    expect(first.row).toMatchObject({ id: 's1', title: '', source: 'web', status: 'idle', pinned: false, archived: false, unread: false, project: 'Home', preview: null });
    // The 17 fields of DESIGN §5, ours derived from agentId and source (agentName, wayIn, agentGroup), DESIGN §16's tags and state, and DESIGN §17's machine.
    expect(Object.keys(first.row)).toHaveLength(23);
    expect(first.row).toMatchObject({ agentName: null, wayIn: 'web chat', agentGroup: 'You, in the web chat' });
    const again = await store.createSession({ id: 's1', source: 'cli', title: 'other' });
    expect(again).toEqual({ row: first.row, created: false });
    const repo = join(dir, 'sessions', 's1');
    expect(existsSync(join(repo, '.git'))).toBe(true);
    expect(existsSync(join(repo, 'workdir', '.gitkeep'))).toBe(true);
    expect(existsSync(join(repo, 'history'))).toBe(false); // made by the first message, so a shell is recognisable
    const meta = JSON.parse(readFileSync(join(repo, 'meta.json'), 'utf8')) as Record<string, unknown>;
    expect(meta).toMatchObject({ id: 's1', agent_id: 'main', title: '', source: 'web', project_id: 'default', head_id: null, status: 'idle' });
    const index = readRegistryOnDisk(join(dir, 'sessions'));
    for (const field of ['id', 'agent_id', 'title', 'created_at', 'updated_at', 'source', 'channel', 'account_id', 'peer_display', 'peer_id', 'pinned', 'archived', 'group', 'status', 'unread', 'preview']) {
      expect(index['s1']).toHaveProperty(field);
    }
    expect(events.map((event) => event.type)).toEqual(['session_created']);
  });
});
