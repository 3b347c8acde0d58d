import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../errors.js';
import type { StoreEvent } from '../events.js';
import { manualClock, tempStoresPerTest } from '../testing/temp-store.js';
import { readRegistryOnDisk } from '../testing/registry-on-disk.js';
import { agentTurn, openProjectStore, storesClosedAfterEach } from '../testing/project-repos.js';
import { SessionStore } from '../session-store.js';
import { DAY_SECONDS, TRASH_KEEP_DAYS } from './trash-record.js';

describe('the trash', () => {
  const fresh = tempStoresPerTest();

  /** A session with two branches, a committed attachment and a note on the message it starts from. */
  async function branchedSession(store: SessionStore): Promise<void> {
    await store.createSession({ id: 'kept', title: 'Kept whole' });
    const first = await store.appendMessage('kept', { role: 'user', content: 'the question' });
    await store.appendMessage('kept', { role: 'assistant', content: 'answer one' });
    await store.appendMessage('kept', { role: 'assistant', content: 'answer two', parentId: first.id });
    const saved = await store.saveAttachment('kept', { name: 'notes.txt', data: Buffer.from('attached') });
    await store.appendMessage('kept', { role: 'user', content: `[attachment: ${saved.id}]` });
    await store.finalizeTurn('kept');
  }

  it('moves a session out of the live list and back whole: branches, messages, attachment, its row', async () => {
    const clock = manualClock();
    const { store, dir } = await fresh({ now: clock.now });
    await branchedSession(store);
    const before = {
      session: await store.getSession('kept'),
      branches: await store.listBranches('kept'),
      nodes: (await store.listNodes('kept', { limit: 100 })).messages,
      attachment: (await store.resolveAttachment('kept', 'notes.txt')).size,
    };
    const events: StoreEvent[] = [];
    store.events.on('event', (event) => events.push(event));

    const record = await store.trash.moveToTrash('kept');
    expect(record).toMatchObject({ id: 'kept', title: 'Kept whole', trashedAt: clock.now(), purgeAt: clock.now() + TRASH_KEEP_DAYS * DAY_SECONDS });
    expect(store.hasSession('kept')).toBe(false);
    expect(existsSync(join(dir, 'sessions', 'kept'))).toBe(false);
    expect(readRegistryOnDisk(join(dir, 'sessions'))['kept']).toBeUndefined();
    expect(readdirSync(join(dir, 'trash', 'kept')).sort()).toEqual(['session', 'trashed.json']);
    expect(store.trash.list().map((row) => row.id)).toEqual(['kept']);
    await expect(store.getSession('kept')).rejects.toBeInstanceOf(NotFoundError);
    expect(events).toEqual([{ type: 'session_deleted', data: { id: 'kept' } }]);

    const row = await store.trash.restore('kept');
    expect(row.id).toBe('kept');
    expect(await store.getSession('kept')).toEqual(before.session);
    expect(await store.listBranches('kept')).toEqual(before.branches);
    expect((await store.listNodes('kept', { limit: 100 })).messages).toEqual(before.nodes);
    expect((await store.resolveAttachment('kept', 'notes.txt')).size).toBe(before.attachment);
    expect(store.trash.list()).toEqual([]);
    expect(existsSync(join(dir, 'trash', 'kept'))).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'session_created', data: row });
  });

  it('keeps the restore across a restart: the registry on disk has the session again', async () => {
    const { store, dir } = await fresh();
    await branchedSession(store);
    const branch = (await store.getBranch('kept')).map((message) => message.content);
    await store.trash.moveToTrash('kept');
    await store.close();
    const reopened = await SessionStore.open({ stateDir: dir });
    try {
      expect(reopened.hasSession('kept')).toBe(false);
      expect(reopened.trash.list().map((row) => row.id)).toEqual(['kept']);
      await reopened.trash.restore('kept');
      await reopened.close();
      const again = await SessionStore.open({ stateDir: dir });
      expect((await again.getBranch('kept')).map((message) => message.content)).toEqual(branch);
      expect(branch).toHaveLength(3);
      await again.close();
    } finally {
      await reopened.close();
    }
  });

  it('writes the change feed a consumer needs: deleted, then created (read whole again)', async () => {
    const { store } = await fresh();
    await branchedSession(store);
    const kinds: string[] = [];
    store.changes.subscribe((notice) => kinds.push(notice.record.kind));
    await store.trash.moveToTrash('kept');
    await store.trash.restore('kept');
    expect(kinds).toEqual(['deleted', 'created']);
  });

  it('refuses what it cannot do, writing nothing', async () => {
    const { store } = await fresh();
    await expect(store.trash.moveToTrash('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.trash.restore('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.trash.purge('nope')).rejects.toBeInstanceOf(NotFoundError);
    await store.createSession({ id: 'twice' });
    await store.trash.moveToTrash('twice');
    await store.createSession({ id: 'twice' });
    await expect(store.trash.restore('twice')).rejects.toBeInstanceOf(ConflictError);
    await expect(store.trash.moveToTrash('twice')).rejects.toBeInstanceOf(ConflictError);
    expect(store.trash.list().map((row) => row.id)).toEqual(['twice']);
  });

  it('purges only what is past its purge date, and a purge removes it for good', async () => {
    const clock = manualClock();
    const { store, dir } = await fresh({ now: clock.now });
    await store.createSession({ id: 'older' });
    await store.trash.moveToTrash('older');
    clock.advance(DAY_SECONDS);
    await store.createSession({ id: 'newer' });
    await store.trash.moveToTrash('newer');
    expect(await store.trash.purgeExpired(clock.now() + (TRASH_KEEP_DAYS - 1) * DAY_SECONDS)).toEqual(['older']);
    expect(store.trash.list().map((row) => row.id)).toEqual(['newer']);
    expect(existsSync(join(dir, 'trash', 'older'))).toBe(false);
    await store.trash.purge('newer');
    expect(store.trash.list()).toEqual([]);
  });
});

describe('the trash of a project session', () => {
  const stores = storesClosedAfterEach();

  it('gives back its place, its project binding and its recovery files', async () => {
    const { store, stateDir, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    await agentTurn(store, 's', projectDir, { 'a.txt': 'a\n' });
    const place = join(stateDir, 'sessions', 'projects', project.id, 's');
    const recovery = join(stateDir, 'sessions', '.file-recovery', 's');
    expect(existsSync(recovery)).toBe(true);
    await store.trash.moveToTrash('s');
    expect(existsSync(place)).toBe(false);
    expect(existsSync(recovery)).toBe(false);
    expect(store.projects.projectOfSession('s')).toBeNull();
    const row = await store.trash.restore('s');
    expect(row.project).toBe(store.projects.nameOf(project.id));
    expect(existsSync(place)).toBe(true);
    expect(existsSync(recovery)).toBe(true);
    expect(store.projects.projectOfSession('s')).toBe(project.id);
    expect((await store.getSession('s')).projectId).toBe(project.id);
  });
});
